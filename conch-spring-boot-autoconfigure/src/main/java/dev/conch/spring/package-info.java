/**
 * The Spring API of conch: {@link dev.conch.spring.OnLeadership @OnLeadership} hooks, {@link
 * dev.conch.spring.LeaderOnly @LeaderOnly} methods, {@link
 * dev.conch.spring.LeaderLifecycle @LeaderLifecycle} beans, the {@link
 * dev.conch.spring.LeadershipEvent leadership events}, {@link dev.conch.spring.CurrentLeadership}
 * and {@link dev.conch.spring.Elections}, with the infrastructure behind them that the starter's
 * auto-configuration creates.
 */
@NullMarked
package dev.conch.spring;

import org.jspecify.annotations.NullMarked;
