/**
 * Auto-configuration for conch: {@code conch.*} properties, the etcd client and session, an {@link
 * dev.conch.Election} bean per office, {@link
 * dev.conch.spring.boot.autoconfigure.OnLeadership @OnLeadership} hooks and leadership events.
 */
@NullMarked
package dev.conch.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
