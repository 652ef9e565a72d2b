package dev.conch.spring.boot.test;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.State;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.LeaderOnlyInvocations;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.springframework.beans.factory.DisposableBean;

/**
 * Scripts the leadership of this application's offices in a test, on the in-memory offices that
 * {@link AutoConfigureTestOffices @AutoConfigureTestOffices} puts in place of etcd. Each transition
 * returns once it happened: once this instance's term ended (its lose hooks ran, its lifecycle
 * beans stopped, its loss event was sent) or once it leads (its acquire hooks ran). Each wait is
 * bounded by the timeout and fails the test with what it saw.
 *
 * <p>After {@link #revoke}, {@link #expire} or {@link #failRenewal} this instance campaigns again
 * and, being the only candidate, soon leads again with a new token; {@link #electOther} keeps it
 * out until {@link #grant}.
 */
public final class TestOffices implements LeaderOnlyInvocations, DisposableBean {

  /** How long each transition may take: 10 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final LocalOffices store;

  private final Supplier<Elections> elections;

  private final Duration timeout;

  private final Map<String, Election> others = new ConcurrentHashMap<>();

  private final Map<String, Set<Long>> ended = new ConcurrentHashMap<>();

  private final Map<String, AtomicLong> runs = new ConcurrentHashMap<>();

  private final Map<String, AtomicLong> skips = new ConcurrentHashMap<>();

  /**
   * @param store the in-memory offices the application's elections run on
   * @param elections the application's elections
   * @param timeout how long each transition may take
   */
  public TestOffices(LocalOffices store, Supplier<Elections> elections, Duration timeout) {
    this.store = store;
    this.elections = elections;
    this.timeout = timeout;
  }

  /** The in-memory offices, for what this class does not script. */
  public LocalOffices store() {
    return this.store;
  }

  /** This instance's candidate for {@code office}. */
  public Election election(String office) {
    return this.elections.get().get(office);
  }

  /** The default office ({@code conch.office}, else {@code spring.application.name}). */
  public String defaultOffice() {
    return this.elections
        .get()
        .defaultOffice()
        .orElseThrow(() -> new IllegalStateException("No default office is configured"));
  }

  /** Waits until this instance leads {@code office} (its acquire hooks ran); returns the term. */
  public Leadership awaitLeading(String office) {
    Election election = election(office);
    await(() -> election.leadership().isPresent(), "this instance to lead office " + office);
    return election.leadership().orElseThrow();
  }

  /** Waits until this instance follows another leader of {@code office}; returns the leader. */
  public Holder awaitFollowing(String office) {
    Election election = election(office);
    await(
        () -> election.state() == State.FOLLOWING && this.store.leader(office).isPresent(),
        "this instance to follow in office " + office);
    return this.store.leader(office).orElseThrow();
  }

  /**
   * Makes this instance lead {@code office}, taking it from another candidate if one leads; returns
   * once its acquire hooks ran.
   */
  public Leadership grant(String office) {
    Election election = election(office);
    String id = election.candidate().id();
    await(
        () -> election.isLeader() || this.store.grant(office, id),
        "this instance to be waiting in office " + office);
    return awaitLeading(office);
  }

  /**
   * Ends this instance's term of {@code office} as if its key were deleted ({@code KEY_DELETED});
   * returns once the term ended.
   *
   * @return the term that ended
   */
  public Leadership revoke(String office) {
    return end(office, () -> this.store.revoke(office));
  }

  /** Ends this instance's term as if its lease expired ({@code LEASE_EXPIRED}). */
  public Leadership expire(String office) {
    return end(office, () -> this.store.expire(office));
  }

  /** Ends this instance's term as if renewing its lease failed ({@code RENEWAL_FAILED}). */
  public Leadership failRenewal(String office) {
    return end(office, () -> this.store.failRenewal(office));
  }

  /**
   * Makes another candidate, {@code candidateId}, lead {@code office} with a new token (ending this
   * instance's term if it led); this instance follows it.
   *
   * @return the other leader: its {@link Holder#rev()} is its fencing token
   */
  public Holder electOther(String office, String candidateId) {
    Election election = election(office);
    watch(office, election);
    long before = election.token().orElse(0);
    Election other =
        this.others.computeIfAbsent(
            office + "/" + candidateId,
            key ->
                this.store.election(
                    ElectionOptions.builder(office).candidateId(candidateId).build()));
    other.start();
    await(
        () -> other.isLeader() || this.store.grant(office, candidateId),
        candidateId + " to be waiting in office " + office);
    await(other::isLeader, candidateId + " to lead office " + office);
    if (before != 0) {
      awaitEnded(office, before);
    }
    return this.store.leader(office).orElseThrow();
  }

  /** How often {@code method} ({@code Class.method()}) of a {@code @LeaderOnly} method ran. */
  public long runs(String method) {
    return count(this.runs, method);
  }

  /** How often a call of {@code @LeaderOnly} {@code method} was skipped. */
  public long skips(String method) {
    return count(this.skips, method);
  }

  /** Waits until {@code @LeaderOnly} {@code method} ran at least {@code times} times. */
  public void awaitRuns(String method, long times) {
    await(() -> runs(method) >= times, method + " to run " + times + " times");
  }

  @Override
  public void run(String office, String method) {
    this.runs.computeIfAbsent(method, m -> new AtomicLong()).incrementAndGet();
  }

  @Override
  public void skipped(String office, String method) {
    this.skips.computeIfAbsent(method, m -> new AtomicLong()).incrementAndGet();
  }

  /** Closes the other candidates. */
  @Override
  public void destroy() {
    this.others.values().forEach(Election::close);
  }

  private Leadership end(String office, Runnable action) {
    Election election = election(office);
    watch(office, election);
    Leadership term = awaitLeading(office);
    action.run();
    awaitEnded(office, term.token());
    return term;
  }

  private void awaitEnded(String office, long token) {
    await(
        () -> this.ended.getOrDefault(office, Set.of()).contains(token),
        "the term with token " + token + " of office " + office + " to end");
  }

  /** Records the end of every term of {@code office}; the events follow the lose hooks. */
  private void watch(String office, Election election) {
    this.ended.computeIfAbsent(
        office,
        key -> {
          Set<Long> tokens = ConcurrentHashMap.newKeySet();
          election.addListener(
              event -> {
                if (event instanceof ElectionEvent.Lost lost) {
                  tokens.add(lost.token());
                } else if (event instanceof ElectionEvent.Resigned resigned) {
                  tokens.add(resigned.token());
                } else if (event instanceof ElectionEvent.Transferred transferred) {
                  tokens.add(transferred.token());
                }
              });
          return tokens;
        });
  }

  private static long count(Map<String, AtomicLong> counts, String method) {
    AtomicLong count = counts.get(method);
    return (count != null) ? count.get() : 0;
  }

  private void await(BooleanSupplier condition, String what) {
    Awaitility.await(what)
        .atMost(this.timeout)
        .pollInterval(Duration.ofMillis(10))
        .until(condition::getAsBoolean);
  }
}
