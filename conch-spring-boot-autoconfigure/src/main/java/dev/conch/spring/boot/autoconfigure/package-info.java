/**
 * Auto-configuration for conch: {@code conch.*} properties, the etcd client and session, an {@link
 * dev.conch.Election} bean per office, {@link
 * dev.conch.spring.boot.autoconfigure.OnLeadership @OnLeadership} hooks, leadership events, the
 * {@link dev.conch.process.ExternalCommandRunner} bean of {@code conch.runner.*}, and readiness
 * that follows leadership on request. The actuator endpoint, health contributor and meters are in
 * the {@code actuate}, {@code health} and {@code metrics} packages.
 */
@NullMarked
package dev.conch.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
