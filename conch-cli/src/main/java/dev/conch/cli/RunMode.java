package dev.conch.cli;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.GroupOptions;
import dev.conch.Holder;
import dev.conch.etcd.EtcdSession;
import dev.conch.process.ExternalCommandRunner;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
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
  private final String office;
  private final Flags flags;
  private final GroupOptions group;
  private final AtomicBoolean ending = new AtomicBoolean();
  private final CountDownLatch tidied = new CountDownLatch(1);

  /** What to run and how: the runner's builder with the flags applied, on the given elections. */
  @FunctionalInterface
  interface Flags {
    ExternalCommandRunner.Builder runner(Function<ElectionOptions, Election> elections);
  }

  RunMode(EtcdSession session, String office, Flags flags, GroupOptions group) {
    this.session = session;
    this.office = office;
    this.flags = flags;
    this.group = group;
  }

  /** Runs to the end; returns the exit status (a signal exits from the hook instead). */
  int run() throws InterruptedException {
    // Built first: a kill-after that does not fit the TTL is a usage error before etcd is asked.
    ExternalCommandRunner runner =
        flags.runner(this::election).electionName(session.options().electionName(office)).build();
    // An unreachable etcd is found here, bounded by the call timeout (exit 69) and named by its
    // cause, rather than by a campaign that retries; the read also tells the operator whom they
    // queue behind. Asked again until the bound: an etcd still starting is not an outage.
    Optional<Holder> leader =
        FirstAnswer.within(
            ConnectionOptions.CALL_TIMEOUT,
            "reading the leader of office '" + office + "'",
            this::readLeader);
    log.info(
        "office {}: campaigning; {}",
        office,
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
    String prefix = session.options().electionName(office) + "/";
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
                      office,
                      kv.getValue().toString(StandardCharsets.UTF_8),
                      kv.getCreateRevision(),
                      kv.getLease()));
    } finally {
      call.cancel(true);
    }
  }

  /**
   * The runner's election, in the office's group: a leader hands the office to a live candidate of
   * higher priority after the minimum tenure. The runner stops the command on a hand-over as on a
   * resign, so the move can happen whenever it is due. The session's close leaves the group.
   */
  private Election election(ElectionOptions options) {
    Election election = session.election(options);
    election.addListener(this::report);
    session
        .group(
            new GroupOptions(
                group.name(),
                options.candidateId(),
                group.priority(),
                group.delay(),
                group.minTenure()))
        .add(election);
    return election;
  }

  private void stopOnSignal(ExternalCommandRunner runner) {
    if (!ending.compareAndSet(false, true)) {
      awaitTidy();
      return;
    }
    log.info("office {}: signalled; stopping the command and resigning", office);
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
