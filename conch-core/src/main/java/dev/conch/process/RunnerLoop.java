package dev.conch.process;

import dev.conch.Backoff;
import dev.conch.Durations;
import dev.conch.Election;
import dev.conch.ElectionClosedException;
import dev.conch.ElectionEvent;
import dev.conch.EtcdUnavailableException;
import dev.conch.LossReason;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decisions of one runner, made on one thread ({@code conch-runner-<office>}): when to
 * campaign, back off, resign, give up or finish. The work itself is started and stopped by {@link
 * TermWork} on the election's hook thread, in step with each transition; it reports here through
 * the queue of {@link Signal}s, as do the command's exit, the election's events and a stop.
 */
final class RunnerLoop {

  private static final Logger log = LoggerFactory.getLogger(ExternalCommandRunner.class);

  /** The longest single wait of the loop: nothing waits unbounded. */
  private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** How soon to look again at a give-up deferred by an acquire under way. */
  private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private enum Phase {
    CAMPAIGNING,
    RUNNING,
    BACKING_OFF
  }

  private final RunnerSettings settings;
  private final Election election;
  private final TermWork term;
  private final BlockingQueue<Signal> signals;
  private final Completion completion;
  private final Backoff backoff;

  private Phase phase = Phase.CAMPAIGNING;
  private long deadline;
  private boolean everStarted;
  private long resumeAt;
  private int campaigns;
  private boolean givingUp;

  RunnerLoop(
      RunnerSettings settings,
      Election election,
      TermWork term,
      BlockingQueue<Signal> signals,
      Completion completion) {
    this.settings = settings;
    this.election = election;
    this.term = term;
    this.signals = signals;
    this.completion = completion;
    this.backoff =
        settings.random() == null
            ? new Backoff(settings.backoffInitial(), settings.backoffCap())
            : new Backoff(settings.backoffInitial(), settings.backoffCap(), settings.random());
  }

  /** Campaigns and decides until the result is decided; the caller releases everything. */
  void run() {
    try {
      if (settings.waitFor() != null) {
        deadline = System.nanoTime() + settings.waitFor().toNanos();
      }
      campaign();
      while (!completion.isDecided()) {
        Signal signal = signals.poll(nextWait(), TimeUnit.NANOSECONDS);
        if (signal != null) {
          handle(signal);
        }
        if (!completion.isDecided()) {
          checkTimers();
        }
      }
    } catch (InterruptedException e) {
      shutDown(ExitCodes.STOPPED, "the supervisor was stopped");
    } catch (RuntimeException | Error e) {
      log.error("office {}: runner failed; stopping the command", settings.office(), e);
      shutDown(ExitCodes.LOST, "the supervisor failed: " + e);
    }
  }

  private long nextWait() {
    long wait = TICK_NANOS;
    long now = System.nanoTime();
    if (phase == Phase.BACKING_OFF) {
      wait = Math.min(wait, resumeAt - now);
    }
    if (givingUp) {
      wait = Math.min(wait, RECHECK_NANOS);
    } else if (waiting()) {
      wait = Math.min(wait, deadline - now);
    }
    return Math.max(0, wait);
  }

  /**
   * Whether a bounded wait for the first start is still on. Not waiting at all is not a deadline
   * but a rule on events: give up as soon as the first campaign does not win.
   */
  private boolean waiting() {
    return settings.waitFor() != null && !settings.nonblocking() && !everStarted;
  }

  private void checkTimers() {
    long now = System.nanoTime();
    if (givingUp || (waiting() && now - deadline >= 0)) {
      giveUp();
    } else if (phase == Phase.BACKING_OFF && now - resumeAt >= 0) {
      campaign();
    }
  }

  private void handle(Signal signal) {
    if (signal instanceof Signal.Stop) {
      shutDown(ExitCodes.STOPPED, "the supervisor was asked to stop (a signal, or a shutdown)");
    } else if (signal instanceof Signal.ChildStarted) {
      phase = Phase.RUNNING;
      everStarted = true;
      givingUp = false;
    } else if (signal instanceof Signal.ChildExited exited) {
      childExited(exited.child());
    } else if (signal instanceof Signal.TermEnded ended) {
      termEnded(ended.child(), ended.reason());
    } else if (signal instanceof Signal.AcquireFailed failed) {
      acquireFailed(failed.why());
    } else if (signal instanceof Signal.Observed observed) {
      observed(observed.event());
    }
  }

  private void childExited(Child child) {
    if (!child.handle()) {
      return;
    }
    int code = child.group().process().exitValue();
    log.info(
        "office {}: command (pid {}) exited with code {}; resigning",
        settings.office(),
        child.group().pid(),
        code);
    // The resign runs on-lose (lost(RESIGNED)) and deletes the key: the next candidate leads now.
    resign("the command (pid " + child.group().pid() + ") exited with code " + code);
    if (settings.restart()) {
      backOff(child);
    } else {
      finish(code);
    }
  }

  /** Leadership ended; {@code child} is null when it ended before the command started. */
  private void termEnded(@Nullable Child child, LossReason reason) {
    if (child != null && !child.handle()) {
      return;
    }
    if (reason == LossReason.TRANSFERRED && settings.restart()) {
      // Handed over (to a candidate of higher priority, say): the command stopped as on a resign,
      // and a runner that runs forever stands again, at the back of the line.
      log.info("office {}: handed over; campaigning again", settings.office());
      resign(null);
      campaign();
    } else if (reason.isVoluntary()) {
      // Not asked for by this runner: its election was resigned or closed under it (a session
      // closed at shutdown).
      log.info("office {}: election {} under the runner; stopping", settings.office(), reason);
      finish(ExitCodes.STOPPED);
    } else if (!settings.restart()) {
      log.warn(
          "office {}: leadership lost ({}); {}",
          settings.office(),
          reason,
          child == null ? "command not started" : "command stopped");
      finish(ExitCodes.LOST);
    } else {
      // The back-off guards against a command that keeps failing; a loss is etcd's doing, not the
      // command's, and the election paces its own retries. Campaigning again at once is what lets
      // the office have a leader again within a TTL or so of the fault's end.
      log.warn(
          "office {}: leadership lost ({}); {}; campaigning again",
          settings.office(),
          reason,
          child == null ? "command not started" : "command stopped");
      resign(null);
      campaign();
    }
  }

  /**
   * The on-acquire hook failed (or the command could not start): a failed campaign. The office is
   * given up; with restart the runner backs off and campaigns again, without it the runner ends
   * with {@link ExitCodes#LOST}: the office was held and given up.
   */
  private void acquireFailed(String why) {
    log.warn("office {}: {}; command not started, office given up", settings.office(), why);
    resign("the command was not started: " + why);
    if (settings.restart()) {
      backOff(null);
    } else {
      finish(ExitCodes.LOST);
    }
  }

  private void observed(ElectionEvent event) {
    if (event instanceof ElectionEvent.Lost lost) {
      term.endOrphan(lost.token(), lost.reason());
    } else if (event instanceof ElectionEvent.Resigned resigned) {
      term.endOrphan(resigned.token(), LossReason.RESIGNED);
    } else if (event instanceof ElectionEvent.Transferred moved) {
      term.endOrphan(moved.token(), LossReason.TRANSFERRED);
    }
    if (!settings.nonblocking() || everStarted || phase != Phase.CAMPAIGNING) {
      return;
    }
    // Not waiting: someone ahead, a refusal, or a first campaign that failed means give up.
    if (event instanceof ElectionEvent.Following
        || event instanceof ElectionEvent.Denied
        || event instanceof ElectionEvent.Lost
        || (event instanceof ElectionEvent.Campaigning && ++campaigns > 1)) {
      giveUp();
    }
  }

  private void campaign() {
    term.accept();
    campaigns = 0;
    phase = Phase.CAMPAIGNING;
    try {
      election.start();
    } catch (ElectionClosedException e) {
      log.info("office {}: election closed under the runner; stopping", settings.office());
      finish(ExitCodes.STOPPED);
    }
  }

  private void backOff(@Nullable Child child) {
    long lived = child == null ? 0 : settings.ticker().nanoTime() - child.startedAt();
    if (child != null && lived >= settings.backoffReset().toNanos()) {
      backoff.reset();
    }
    Duration delay = backoff.next();
    if (settings.backoffObserver() != null) {
      settings.backoffObserver().accept(delay);
    }
    log.info("office {}: campaigning again in {}", settings.office(), Durations.format(delay));
    phase = Phase.BACKING_OFF;
    resumeAt = System.nanoTime() + delay.toNanos();
  }

  /** The wait ran out: leave the election; 69 when etcd cannot even be read, else 75. */
  private void giveUp() {
    if (!term.refuseUnlessAcquiring()) {
      givingUp = true; // an acquire under way decides: the command starts, or it failed
      return;
    }
    givingUp = false;
    election.resign();
    int code = ExitCodes.WAIT_EXPIRED;
    try {
      election.leader();
    } catch (EtcdUnavailableException e) {
      code = ExitCodes.UNAVAILABLE;
      log.warn("office {}: etcd unavailable: {}", settings.office(), e.getMessage());
    }
    Duration waited = settings.waitFor(); // set: only a wait gives up
    log.warn(
        "office {}: not leading {}; giving up",
        settings.office(),
        settings.nonblocking() || waited == null
            ? "at once"
            : "within " + Durations.format(waited));
    finish(code);
  }

  private void shutDown(int code, String why) {
    log.info("office {}: stopping the runner", settings.office());
    resign(why);
    term.awaitAcquires(settings.killAfter().plus(ProcessGroup.KILL_WAIT).plusSeconds(1));
    finish(code);
  }

  /**
   * Leaves the election: lost(RESIGNED) stops the command and runs on-lose before the key goes;
   * {@code why}, when given, is what the office's history records as having ended the term.
   */
  private void resign(@Nullable String why) {
    term.refuse();
    if (why == null) {
      election.resign();
    } else {
      election.resign(why);
    }
    // A command whose lose hook was not called (an acquire given up as it returned) stops here.
    term.endCurrent(LossReason.RESIGNED);
  }

  private void finish(int code) {
    if (completion.decide(code)) {
      log.info("office {}: runner finished with {}", settings.office(), code);
    }
  }
}
