package dev.conch.process;

import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work of each term of leadership, started and stopped on the election's hook thread, in step
 * with the transition: on winning, the on-acquire hook and then the command; on any end, the
 * command's group stopped (SIGTERM, SIGKILL after kill-after) and then the on-lose hook, all before
 * the election releases the key and before the lease could expire.
 */
final class TermWork implements LeadershipHandler {

  private static final Logger log = LoggerFactory.getLogger(ExternalCommandRunner.class);

  private final RunnerSettings settings;
  private final Duration safetyMargin;
  private final Queue<Signal> signals;
  private final Object lock = new Object();

  // Guarded by lock.
  private boolean accepting;
  private int acquiring;
  private @Nullable Child child;

  // Guarded by lock: the highest token whose term has ended (its lose hook was called).
  private long endedToken;

  /**
   * @param safetyMargin the election's: the command is killed no later than this long before the
   *     term's lease deadline, whatever kill-after says
   */
  TermWork(RunnerSettings settings, Duration safetyMargin, Queue<Signal> signals) {
    this.settings = settings;
    this.safetyMargin = safetyMargin;
    this.signals = signals;
  }

  /** Lets the next win start the work. */
  void accept() {
    synchronized (lock) {
      accepting = true;
    }
  }

  /** Makes every win from now on step down at once (backing off, giving up, stopping). */
  void refuse() {
    synchronized (lock) {
      accepting = false;
    }
  }

  /** Refuses, unless an acquire is under way; returns whether it refused. */
  boolean refuseUnlessAcquiring() {
    synchronized (lock) {
      if (acquiring > 0) {
        return false;
      }
      accepting = false;
      return true;
    }
  }

  /** Waits until no acquire is under way (one given up by the election kills its hook). */
  void awaitAcquires(Duration bound) {
    long until = System.nanoTime() + bound.toNanos();
    synchronized (lock) {
      while (acquiring > 0) {
        long left = until - System.nanoTime();
        if (left <= 0) {
          log.warn("office {}: an on-acquire hook is still being stopped", settings.office());
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(lock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** The pid of the command while it runs. */
  Optional<Long> childPid() {
    synchronized (lock) {
      return child != null && child.group().process().isAlive()
          ? Optional.of(child.group().pid())
          : Optional.empty();
    }
  }

  @Override
  public void acquired(Leadership leadership) throws Exception {
    synchronized (lock) {
      if (!accepting) {
        throw new AcquireRefusedException(
            "office '" + settings.office() + "': the runner is not campaigning now");
      }
      acquiring++;
    }
    try {
      Map<String, String> environment = environment(leadership);
      if (settings.onAcquire() != null) {
        log.info(
            "office {}: won with token {}; running the on-acquire hook",
            settings.office(),
            leadership.token());
        HookCommand.Outcome outcome =
            HookCommand.run(
                "on-acquire hook",
                settings.onAcquire(),
                environment,
                settings.hookTimeout(),
                settings.killAfter(),
                settings.output(),
                settings.error());
        if (!outcome.succeeded()) {
          String why = "on-acquire hook " + outcome.describe();
          refuse(); // until the runner has backed off
          signals.add(new Signal.AcquireFailed(why));
          throw new AcquireRefusedException(why);
        }
      }
      start(leadership, environment);
    } finally {
      synchronized (lock) {
        acquiring--;
        lock.notifyAll();
      }
    }
  }

  private void start(Leadership leadership, Map<String, String> environment)
      throws IOException, AcquireRefusedException {
    Child started;
    synchronized (lock) {
      // Interrupted: the election gave this acquire up (the term ended, or a resign) meanwhile.
      // Not valid: the loss lead began while the hook ran, and the election has not acted yet.
      if (!accepting
          || Thread.currentThread().isInterrupted()
          || leadership.token() <= endedToken
          || !leadership.isValid()) {
        throw new AcquireRefusedException(
            "office '" + settings.office() + "': leadership given up before the command started");
      }
      ProcessGroup group;
      try {
        group =
            ProcessGroup.start(
                "command",
                settings.command(),
                environment,
                settings.input(),
                settings.output(),
                settings.error(),
                settings.killAfter());
      } catch (IOException e) {
        accepting = false;
        signals.add(new Signal.AcquireFailed("command could not be started: " + e.getMessage()));
        throw e;
      }
      started = new Child(leadership, group, settings.ticker().nanoTime());
      child = started;
      signals.add(new Signal.ChildStarted(started));
    }
    log.info(
        "office {}: command started (pid {}, token {})",
        settings.office(),
        started.group().pid(),
        leadership.token());
    started
        .group()
        .process()
        .onExit()
        .thenRun(
            () -> {
              if (!started.isEnding()) {
                signals.add(new Signal.ChildExited(started));
              }
            });
  }

  @Override
  public void lost(Leadership leadership, LossReason reason) {
    boolean beforeStart;
    synchronized (lock) {
      // An acquire of this term still under way (given up by the election) must not start now.
      endedToken = Math.max(endedToken, leadership.token());
      // Lost before its command started (during the on-acquire hook), while nothing else decided
      // what comes next: the runner must hear of it as of any loss, or it would simply go on.
      beforeStart = accepting && (child == null || child.term().token() != leadership.token());
      if (beforeStart) {
        accepting = false;
      }
    }
    if (beforeStart) {
      signals.add(new Signal.TermEnded(null, reason));
      return;
    }
    Child current = current();
    if (current != null && current.term().token() == leadership.token()) {
      end(current, reason);
    }
  }

  /** Ends the current command, if any, as a lose hook would. */
  void endCurrent(LossReason reason) {
    Child current = current();
    if (current != null) {
      end(current, reason);
    }
  }

  /**
   * Ends the command of the term with {@code token} if its lose hook was never called: the election
   * gave up an acquire just as it returned. Returns whether there was such a command.
   */
  boolean endOrphan(long token, LossReason reason) {
    Child current = current();
    if (current == null || current.term().token() != token || current.isEnding()) {
      return false;
    }
    log.error(
        "office {}: leadership with token {} ended without its lose hook; stopping the command",
        settings.office(),
        token);
    end(current, reason);
    return true;
  }

  private @Nullable Child current() {
    synchronized (lock) {
      return child;
    }
  }

  private void end(Child ending, LossReason reason) {
    boolean ran =
        ending.end(
            () -> {
              if (!ending.group().isEmpty()) {
                log.info(
                    "office {}: stopping the command (pid {}): {}",
                    settings.office(),
                    ending.group().pid(),
                    reason);
              }
              ending.group().terminate(grace(ending.term(), reason));
              runOnLose(ending.term(), reason);
            });
    synchronized (lock) {
      if (child == ending) {
        child = null;
      }
      // No new term until the runner thread has decided (back off, finish): the election would
      // otherwise campaign again on its own.
      accepting = false;
    }
    if (ran) {
      signals.add(new Signal.TermEnded(ending, reason));
    }
  }

  /**
   * The SIGTERM grace of a stop: none when a successor may already run its own command; else
   * kill-after, cut short so that SIGKILL goes out no later than the safety margin before the
   * term's lease could expire.
   */
  private Duration grace(Leadership term, LossReason reason) {
    if (reason.successorMayLead()) {
      return Duration.ZERO;
    }
    Duration left = term.timeToDeadline().minus(safetyMargin);
    if (left.compareTo(settings.killAfter()) >= 0) {
      return settings.killAfter();
    }
    log.warn(
        "office {}: {} left before the lease deadline; the command gets SIGKILL then",
        settings.office(),
        dev.conch.Durations.format(left.isNegative() ? Duration.ZERO : left));
    return left.isNegative() || left.isZero() ? Duration.ZERO : left;
  }

  /**
   * Runs on-lose within the hook timeout, and never past the safety margin before the lease
   * deadline: after that a successor may lead. The deadline is read as the hook runs, so that the
   * hook of a resign, whose lease is still renewed until its key is deleted after the hook, keeps
   * its whole timeout, while after a loss (renewals failing, key or lease gone) the deadline stands
   * still and the hook is killed before it.
   */
  private void runOnLose(Leadership leadership, LossReason reason) {
    if (settings.onLose() == null) {
      return;
    }
    Supplier<Duration> beforeDeadline = () -> leadership.timeToDeadline().minus(safetyMargin);
    Duration left = beforeDeadline.get();
    if (left.isNegative() || left.isZero()) {
      log.warn(
          "office {}: on-lose hook not run: the lease deadline is (nearly) past, a successor may"
              + " lead ({})",
          settings.office(),
          reason);
      return;
    }
    try {
      HookCommand.Outcome outcome =
          HookCommand.run(
              "on-lose hook",
              settings.onLose(),
              environment(leadership),
              settings.hookTimeout(),
              beforeDeadline,
              settings.killAfter(),
              settings.output(),
              settings.error());
      if (outcome.cutAtDeadline()) {
        log.warn(
            "office {}: on-lose hook still ran {} before the lease deadline; its group was"
                + " killed, so that it cannot overlap a successor ({})",
            settings.office(),
            dev.conch.Durations.format(safetyMargin),
            reason);
      } else if (!outcome.succeeded()) {
        log.warn("office {}: on-lose hook {} ({})", settings.office(), outcome.describe(), reason);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("office {}: on-lose hook interrupted and killed", settings.office());
    }
  }

  /** How the election's logs name this lose hook. */
  @Override
  public String toString() {
    return "the runner of office '" + settings.office() + "'";
  }

  /** The environment of the command and hooks: the parent's, the extra, then the term's. */
  Map<String, String> environment(Leadership leadership) {
    Map<String, String> environment = new LinkedHashMap<>(settings.environment());
    String token = Long.toString(leadership.token());
    environment.put("CONCH_NAME", leadership.office());
    environment.put("CONCH_REV", token);
    environment.put("CONCH_LEASE", leadership.leaseHex());
    // Scripts written for `etcdctl lock` read these; the create revision is the better token.
    environment.putIfAbsent("ETCD_LOCK_REV", token);
    if (settings.electionName() != null) {
      environment.putIfAbsent(
          "ETCD_LOCK_KEY", settings.electionName() + "/" + leadership.leaseHex());
    }
    return environment;
  }
}
