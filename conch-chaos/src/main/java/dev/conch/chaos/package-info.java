/**
 * The chaos soak: a real etcd (1 or 3 members), several supervisors ({@code conch elect --restart},
 * and optionally sample-app instances with Spring's {@code ExternalCommandRunner}), each behind TCP
 * proxies of its own, and random faults for a chosen time; then checks over what happened. Not part
 * of the tests: run through the module's {@code -Dsoak} profile, see docs/chaos.md.
 *
 * <ul>
 *   <li>{@link dev.conch.chaos.ChaosSoak} is the entry point: it starts everything, injects the
 *       faults and writes the report.
 *   <li>{@code SoakOptions} is what a soak runs (members, candidates, minutes, TTL, kill-after,
 *       faults, seed); {@code Candidate} is one supervisor with its proxies.
 *   <li>{@code SoakReport} checks safety (no overlap but a frozen supervisor's, tokens increasing,
 *       no orphaned process, recovery time) and steadiness (terms per hour, needless losses);
 *       {@code Orphans} looks through {@code /proc} for processes left behind; {@code HistoryCheck}
 *       compares the terms seen with the office's recorded history ({@code OfficeHistory}, read
 *       from etcd once every supervisor stopped).
 *   <li>{@link dev.conch.chaos.BalanceSoak} is a second soak, of the fair share: three members of
 *       one office group in this JVM ({@code BalanceMember}), faults, and the checks of {@code
 *       TermLog} over every term's hooks on one clock.
 * </ul>
 */
@NullMarked
package dev.conch.chaos;

import org.jspecify.annotations.NullMarked;
