/**
 * Process supervision: {@link dev.conch.process.ExternalCommandRunner} runs a command, in a process
 * group of its own, only while this candidate leads an office, and stops the whole group before the
 * lease could expire. {@link dev.conch.process.ExitCodes} are its results. What the runner does,
 * step by step, is described once, in the repository's {@code docs/runner.md}.
 *
 * <p>Inside, one class per part: {@code RunnerSettings} checks the settings; {@code Supervisor}
 * owns a runner's thread, stop and result; {@code RunnerLoop} decides when to campaign, back off,
 * resign or finish; {@code Term} does each term's work (on-acquire hook, command, stop, on-lose
 * hook) on the election's hook thread; {@code ProcessGroup} and {@code ProcessGroups} start, signal
 * and reap process groups; {@code HookCommand} runs a hook; {@code Watchdog} kills a group when the
 * JVM dies abruptly.
 */
@NullMarked
package dev.conch.process;

import org.jspecify.annotations.NullMarked;
