/**
 * The Spring API of conch's elections: {@link dev.conch.spring.OnLeadership @OnLeadership} hooks,
 * {@link dev.conch.spring.LeaderLifecycle @LeaderLifecycle} beans, the {@link
 * dev.conch.spring.LeadershipEvent leadership events} and {@link dev.conch.spring.Elections}.
 *
 * <p>Each feature has a package of its own whose public types are what an application touches:
 * {@link dev.conch.spring.leaderonly} ({@code @LeaderOnly}, its tasks and misfires), {@link
 * dev.conch.spring.health} (the health-gated candidacy and its events), {@link
 * dev.conch.spring.fence} (fenced transactions). What the auto-configuration builds to run the
 * hooks, events, offices and balance is in {@link dev.conch.spring.support}.
 */
@NullMarked
package dev.conch.spring;

import org.jspecify.annotations.NullMarked;
