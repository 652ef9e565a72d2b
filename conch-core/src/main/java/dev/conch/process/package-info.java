/**
 * Process supervision: {@link dev.conch.process.ExternalCommandRunner} runs a command, in a process
 * group of its own, only while this candidate leads an office, and stops the whole group before the
 * lease could expire. {@link dev.conch.process.ExitCodes} are its results.
 *
 * <p>Decisions where the spec is silent:
 *
 * <ul>
 *   <li>A failing or timed-out on-acquire hook, with or without restart, gives the office up at
 *       once and campaigns again after the runner's back-off; the command is not started and
 *       on-lose does not run. A bounded wait still ends in 75; not waiting at all ends in 75 at the
 *       first failure.
 *   <li>With restart, the back-off (1 s to 30 s) follows a command that exited or an on-acquire
 *       hook that failed; after a loss of leadership the runner campaigns again at once, so that
 *       the office has a leader again soon after a fault ends (issue 8: within TTL + 2 s).
 *   <li>When leadership ends because a successor may already lead (the key was deleted, the lease
 *       is gone, or the deadline passed while the process was frozen), the command's group is
 *       killed at once, without the SIGTERM grace.
 *   <li>Each command and hook has a watchdog process that kills its group if the JVM dies abruptly
 *       (SIGKILL, OOM kill): see {@code Watchdog}.
 *   <li>The wait bounds only the time until the command first starts: restart mode never ends on
 *       its own. When it runs out, the runner reads the leader once: 69 when etcd cannot be read,
 *       else 75.
 *   <li>{@code stop()} (signal, shutdown) yields 143, 128 + SIGTERM, unless the runner had already
 *       finished.
 *   <li>What a hook leaves running in its process group is stopped when the hook returns.
 *   <li>The command reads standard input from {@code /dev/null} unless redirected; its output and
 *       the hooks' are passed through.
 *   <li>{@code CONCH_NAME}, {@code CONCH_REV} and {@code CONCH_LEASE} cannot be overridden by the
 *       extra environment; {@code ETCD_LOCK_REV} (the token) and {@code ETCD_LOCK_KEY} (when the
 *       election name is given) are set too, for scripts written for {@code etcdctl lock}.
 *   <li>A JVM that exits normally stops every runner not yet stopped (as {@code stop()} does), then
 *       kills whatever is left in their process groups.
 * </ul>
 */
package dev.conch.process;
