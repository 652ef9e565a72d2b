/**
 * The election API, the same for every store. A user holds an {@link dev.conch.Election}: a
 * candidate for one office that campaigns, leads with a fencing token ({@link
 * dev.conch.Leadership#token()}), and stops believing it leads a safety margin before its lease
 * could expire, whatever the store says. {@link dev.conch.LeadershipHandler}s are the acquire and
 * lose hooks; {@link dev.conch.ElectionEvent}s tell listeners of every change; {@link
 * dev.conch.ElectionOptions} (built from {@link dev.conch.Setting}s) configure a candidate.
 *
 * <p>How it works: {@link dev.conch.FencedElection} is the candidate; its loop ({@code
 * ElectionLoop}) gates, campaigns on a {@link dev.conch.FencedLock} (the seam to a store), and runs
 * one {@code LeadershipTerm} per win, whose end {@code LossRule} decides: the store's facts first,
 * then the deadline, then the candidate's own commands. Every election of a process shares a few
 * threads ({@code SharedThreads}); none waits. The stores are {@link dev.conch.etcd} and {@link
 * dev.conch.local}; the command runner is {@link dev.conch.process}.
 */
@NullMarked
package dev.conch;

import org.jspecify.annotations.NullMarked;
