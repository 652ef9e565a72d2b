/**
 * The machinery behind {@link dev.conch.spring}, built by the starter's auto-configuration, not by
 * applications: the lifecycle that wires hooks and starts the candidates ({@link
 * dev.conch.spring.support.ConchLifecycle}), the event publisher, the {@code @OnLeadership} and
 * {@code @LeaderLifecycle} post-processors, the office balancer and the external command's
 * lifecycle. Its public types may change between releases.
 */
@NullMarked
package dev.conch.spring.support;

import org.jspecify.annotations.NullMarked;
