package dev.conch.cli;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.Holder;
import dev.conch.etcd.EtcdSession;
import dev.conch.process.ExternalCommandRunner;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code conch elect <office> ... -- <cmd...>}: hands the command to conch-core's {@link
 * ExternalCommandRunner}, which campaigns, runs and stops it; the CLI never supervises on its own.
 *
 * <p>Signals arrive through a shutdown hook: the JVM's own handlers exit with 128 + the signal
 * (130, 143; 129 for SIGHUP) once every hook has returned, and this one returns only after the
 * runner stopped (the child's group is dead, on-lose has run, the office is resigned) and the lease
 * is revoked.
 */
final class RunMode {

  private static final Logger log = LoggerFactory.getLogger(RunMode.class);

  /** The most a signal waits for a normal exit that is already tidying up. */
  private static final Duration TIDY_UP = Duration.ofSeconds(10);

  private final EtcdSession session;
  private final Spec spec;
  private final AtomicBoolean ending = new AtomicBoolean();
  private final CountDownLatch tidied = new CountDownLatch(1);

  /**
   * What to run and how.
   *
   * @param office the office
   * @param command the child's argv
   * @param restart whether to run again after a loss or an exit, forever
   * @param killAfter how long the child's group may take to stop after SIGTERM
   * @param onAcquire {@code sh -c} command run on winning, before the child; {@code null}: none
   * @param onLose {@code sh -c} command run after the child stopped; {@code null}: none
   * @param hookTimeout how long each hook may run
   * @param waitFor how long to campaign: {@code ZERO} not at all, {@code null} forever
   */
  record Spec(
      String office,
      List<String> command,
      boolean restart,
      Duration killAfter,
      String onAcquire,
      String onLose,
      Duration hookTimeout,
      Duration waitFor) {}

  RunMode(EtcdSession session, Spec spec) {
    this.session = session;
    this.spec = spec;
  }

  /** Runs to the end; returns the exit status (a signal exits from the hook instead). */
  int run() throws InterruptedException {
    // Built first: a kill-after that does not fit the TTL is a usage error before etcd is asked.
    ExternalCommandRunner runner =
        ExternalCommandRunner.builder(spec.office(), this::election)
            .command(spec.command())
            .restart(spec.restart())
            .killAfter(spec.killAfter())
            .onAcquire(spec.onAcquire())
            .onLose(spec.onLose())
            .hookTimeout(spec.hookTimeout())
            .waitFor(spec.waitFor())
            .electionName(session.options().electionName(spec.office()))
            .build();
    // An unreachable etcd is found here, bounded by the call timeout (exit 69) and named by its
    // cause, rather than by a campaign that retries; the read also tells the operator whom they
    // queue behind. Asked again until the bound: an etcd still starting is not an outage.
    Optional<Holder> leader =
        FirstAnswer.within(
            ConnectionOptions.CALL_TIMEOUT,
            "reading the leader of office '" + spec.office() + "'",
            this::readLeader);
    log.info(
        "office {}: campaigning; {}",
        spec.office(),
        leader.map(h -> "held by " + Views.holderLine(h)).orElse("vacant"));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stopOnSignal(runner), "conch-signal"));
    runner.start();
    int status = runner.awaitExit();
    if (!ending.compareAndSet(false, true)) {
      // A signal came first: its hook stops everything and the JVM exits with 130 or 143.
      Thread.currentThread().join();
    }
    try {
      runner.close();
      session.close();
    } finally {
      tidied.countDown();
    }
    return status;
  }

  /** One read of the leader over the session's client, bounded by {@code timeout}. */
  private Optional<Holder> readLeader(Duration timeout) throws Exception {
    String prefix = session.options().electionName(spec.office()) + "/";
    CompletableFuture<GetResponse> call =
        session
            .client()
            .getKVClient()
            .get(
                ByteSequence.from(prefix, StandardCharsets.UTF_8),
                GetOption.builder()
                    .isPrefix(true)
                    .withSortField(GetOption.SortTarget.CREATE)
                    .withSortOrder(GetOption.SortOrder.ASCEND)
                    .withLimit(1)
                    .build());
    try {
      return call.get(timeout.toNanos(), TimeUnit.NANOSECONDS).getKvs().stream()
          .findFirst()
          .map(
              kv ->
                  Holder.parse(
                      spec.office(),
                      kv.getValue().toString(StandardCharsets.UTF_8),
                      kv.getCreateRevision(),
                      kv.getLease()));
    } finally {
      call.cancel(true);
    }
  }

  private Election election(dev.conch.ElectionOptions options) {
    Election election = session.election(options);
    election.addListener(this::report);
    return election;
  }

  private void stopOnSignal(ExternalCommandRunner runner) {
    if (!ending.compareAndSet(false, true)) {
      awaitTidy();
      return;
    }
    log.info("office {}: signalled; stopping the command and resigning", spec.office());
    try {
      runner.stop();
    } finally {
      session.close();
    }
  }

  private void awaitTidy() {
    try {
      tidied.await(TIDY_UP.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One log line for the transition the core does not log itself: following another leader. */
  private void report(ElectionEvent event) {
    if (event instanceof ElectionEvent.Following following && following.leader() != null) {
      log.info("office {}: following {}", event.office(), Views.holderLine(following.leader()));
    }
  }
}
