package dev.conch.sample;

import dev.conch.Election;
import dev.conch.EtcdUnavailableException;
import dev.conch.Leadership;
import dev.conch.LossReason;
import dev.conch.NotLeaderException;
import dev.conch.jdbc.StaleTokenException;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The work that must run on one instance only: every {@code sample.report.interval} the leader of
 * the office makes a report, stamps it with its fencing token, stores it in etcd with a fenced
 * write that etcd refuses once a newer leader exists, and as a row of the application's database
 * through {@link ReportStore}, which the database refuses once a newer leader wrote there.
 *
 * <p>The schedule runs on every instance; the leadership check inside decides. The acquire and lose
 * methods are where a real job would open and close what it needs while it leads.
 */
@Component
// Off with conch (conch.enabled=false): the same app without leader election, which the benchmark
// uses to measure what the starter adds to start-up.
@ConditionalOnProperty(name = "conch.enabled", havingValue = "true", matchIfMissing = true)
public class ReportJob {

  private static final Logger log = LoggerFactory.getLogger(ReportJob.class);

  private final Election election;

  private final String key;

  private final @Nullable ReportStore store;

  private final AtomicLong made = new AtomicLong();

  private final AtomicReference<Report> last = new AtomicReference<>();

  /**
   * The job of the default office ({@code conch.office}), storing reports at {@code key}.
   *
   * @param election this instance's candidate for the default office
   * @param key the etcd key the fenced write stores the latest report at
   */
  public ReportJob(Election election, String key) {
    this(election, key, null);
  }

  /**
   * The job of the default office, storing reports at {@code key} in etcd and, through the fence,
   * as rows of {@code sample_report} in the application's database.
   *
   * @param election this instance's candidate for the default office
   * @param key the etcd key the fenced write stores the latest report at
   * @param store the fenced database write, or {@code null} for none
   */
  @Autowired
  public ReportJob(
      Election election, @Value("${sample.report.key}") String key, @Nullable ReportStore store) {
    this.election = election;
    this.key = key;
    this.store = store;
  }

  /** Runs before this instance is reported as leading: a real job would open its resources here. */
  @OnLeadership
  void startReporting(Leadership leadership) {
    log.info(
        "Leading office {} with token {}: reports start now",
        leadership.office(),
        leadership.token());
  }

  /** Runs before the office is released, and before the lease could expire: stop the work here. */
  @OnLeadership(on = Transition.LOST)
  void stopReporting(Leadership leadership, LossReason reason) {
    log.info(
        "No longer leading office {} (token {}, {}): reports stop now",
        leadership.office(),
        leadership.token(),
        reason);
  }

  /** Makes one report if this instance leads; does nothing on the others. */
  @Scheduled(
      initialDelayString = "${sample.report.interval}",
      fixedDelayString = "${sample.report.interval}")
  public void report() {
    // leadership() is checked against the lease deadline on every call, so it is empty as soon as
    // this instance may no longer act, even before the lose methods have run.
    Optional<Leadership> term = this.election.leadership();
    if (term.isEmpty()) {
      return;
    }
    Report report =
        new Report(
            this.made.incrementAndGet(),
            // This instance's own candidate, made by conch: it has an id.
            Objects.requireNonNull(this.election.candidate().id()),
            term.get().token(),
            Instant.now(),
            false);
    boolean stored;
    try {
      // The guard: etcd writes only while the key of this term is still the leader's key, so a
      // stale leader (frozen past its lease) cannot overwrite a newer leader's report.
      stored = this.election.guardedPut(this.key, report.toJson());
    } catch (NotLeaderException ex) {
      log.info("Report {} dropped: leadership ended before it was stored", report.number());
      return;
    } catch (EtcdUnavailableException ex) {
      log.warn("Report {} not stored: {}", report.number(), ex.getMessage());
      return;
    }
    if (stored && this.store != null) {
      stored = storeRow(this.store, report, term.get());
    }
    report = report.stored(stored);
    this.last.set(report);
    if (stored) {
      log.info(
          "Report {} by {} with token {} stored", report.number(), report.by(), report.token());
    } else {
      log.warn("Report {} with token {} refused by the fence", report.number(), report.token());
    }
  }

  /** The row in the database, through the fence; whether the database took it. */
  private boolean storeRow(ReportStore store, Report report, Leadership term) {
    try {
      store.store(report, term);
      return true;
    } catch (StaleTokenException ex) {
      // The database refused it: a newer leader wrote through the fence while this write was in
      // flight. Both tokens are in the refusal.
      log.warn(
          "Report {} with token {} refused by the database: the fence holds token {} of {}",
          report.number(),
          ex.token(),
          ex.currentToken(),
          ex.currentHolder());
      return false;
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      log.info("Report {} dropped: its held write was interrupted", report.number());
      return false;
    } catch (RuntimeException ex) {
      log.warn("Report {} not stored in the database: {}", report.number(), ex.getMessage());
      return false;
    }
  }

  /** The latest report this instance made, if it ever led. */
  public Optional<Report> lastReport() {
    return Optional.ofNullable(this.last.get());
  }
}
