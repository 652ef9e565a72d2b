package dev.conch.etcd;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.EtcdUnavailableException;
import dev.conch.FencedElection;
import dev.conch.GroupOptions;
import dev.conch.Holder;
import dev.conch.InvalidArgumentException;
import dev.conch.OfficeGroup;
import dev.conch.State;
import dev.conch.TermRecord;
import dev.conch.Ticker;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client process's presence in etcd: its leases, shared by the offices it campaigns in (at most
 * {@link SessionOptions#maxKeysPerLease()} offices each: {@link Leases}), each kept by a {@link
 * LeaseKeeper} on a monotonic clock; the elections of its offices; its one watch ({@link
 * DeletionWatch}); and the actions (a resign, a withdrawal, a revoke) that must happen once etcd
 * answers.
 */
public final class EtcdSession implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);

  /**
   * How many campaign requests of one session may be under way at once at most. Enough that a
   * hand-over never waits (it costs one), few enough that starting a thousand offices does not
   * flood etcd: the lease's renewals share the connection and must be answered in time. Fewer while
   * etcd answers slowly, one once a renewal failed ({@link InFlight}).
   */
  static final int CAMPAIGN_REQUESTS = 32;

  private final Client client;
  private final SessionOptions options;
  private final Ticker ticker;
  private final Leases leases;
  private final LeaseKeeper keeper;
  private final CampaignFailureLog campaignFailures;
  private final Map<String, FencedElection> elections = new ConcurrentHashMap<>();
  private final List<OfficeGroup> groups = new CopyOnWriteArrayList<>();
  private final AtomicLong wakeups = new AtomicLong();
  private final DeletionWatch deletions;
  private final InFlight requests;
  // The renewal failures of this session's leases as the last tick saw them.
  private final AtomicLong renewalFailuresSeen = new AtomicLong();
  private final GhostKeys ghosts = new GhostKeys(this);
  private final TermHistory history;
  private final Object monitor = new Object();
  // Held while an election is made: its check, its lease's slot and its entry go together.
  private final Object creating = new Object();

  // Guarded by monitor.
  private final List<PendingAction> pending = new ArrayList<>();
  private boolean closed;

  private EtcdSession(Client client, SessionOptions options) {
    this.client = client;
    this.options = options;
    this.ticker = options.ticker();
    // Slower than a renewal attempt may take is too slow: the renewals share the connection.
    this.requests = new InFlight(CAMPAIGN_REQUESTS, ticker, this::attemptTimeoutNanos);
    this.leases = new Leases(client, options, this::tick, this::revoke);
    this.keeper = leases.first();
    this.deletions =
        new DeletionWatch(() -> client.getWatchClient(), EtcdCalls.bytes(options.prefix()), ticker);
    this.campaignFailures =
        new CampaignFailureLog(ticker, options.timeout(), this::campaigningOffices);
    this.history = new TermHistory(this, options.historyTerms());
  }

  /**
   * Opens a session on {@code client}. Nothing is asked of etcd until an election campaigns: an
   * unreachable etcd is not an error here.
   */
  public static EtcdSession open(Client client, SessionOptions options) {
    return new EtcdSession(client, options);
  }

  /** The options of this session. */
  public SessionOptions options() {
    return options;
  }

  /** The jetcd client this session uses (not closed by {@link #close()}). */
  public Client client() {
    return client;
  }

  /**
   * A new candidate for {@code electionOptions.office()} on one of this session's leases (the first
   * with room for its key); call {@link Election#start()} to join. Every lease is renewed often
   * enough for its loss lead ({@link RenewalBudget}).
   *
   * @throws InvalidArgumentException when the stop timeout and safety margin leave too little of
   *     the TTL to renew in
   * @throws IllegalStateException when this session has an election for the office that is not
   *     closed: both would share one key
   */
  public Election election(ElectionOptions electionOptions) {
    String office = electionOptions.office();
    leases.require(electionOptions.stopTimeout(), electionOptions.safetyMargin());
    synchronized (creating) {
      if (isOpen(office)) {
        throw new IllegalStateException(
            "office '"
                + office
                + "' already has an election on this session; close it first (one lease holds"
                + " one key per office)");
      }
      LeaseKeeper lease = leases.take(office, this::isOpen);
      FencedElection election =
          new FencedElection(
              new EtcdOffice(this, office, lease), electionOptions, ticker, options.clock());
      elections.put(office, election);
      return election;
    }
  }

  private boolean isOpen(String office) {
    FencedElection election = elections.get(office);
    return election != null && election.state() != State.CLOSED;
  }

  /**
   * Joins the group {@code options.name()} on this session's lease: its member key lives under the
   * meta root ({@code <meta root>groups/<group>/members/<member id>}), one watch follows the group.
   * Add the elections whose offices the group shares; closing the session closes the group.
   *
   * @throws IllegalStateException when this session is closed
   */
  public OfficeGroup group(GroupOptions options) {
    synchronized (monitor) {
      if (closed) {
        throw new IllegalStateException("session is closed");
      }
    }
    EtcdOfficeGroup group = new EtcdOfficeGroup(this, options);
    groups.add(group);
    return group;
  }

  /** How this session renews its lease now. */
  public RenewalBudget renewalBudget() {
    return keeper.budget();
  }

  /**
   * Who leads {@code office} now, read from etcd without a lease; empty when vacant.
   *
   * @throws EtcdUnavailableException when etcd does not answer in time
   */
  public Optional<Holder> leader(String office) {
    return new EtcdOffice(this, office).leader();
  }

  /**
   * The last {@code limit} terms of {@code office}'s history, oldest first, read from etcd without
   * a lease; empty when the office never had a recorded term (DESIGN.md, "The flight recorder").
   *
   * @throws EtcdUnavailableException when etcd does not answer in time
   */
  public List<TermRecord> history(String office, int limit) {
    return EtcdCalls.awaitUninterruptibly(
        history.read(office, limit),
        options.timeout(),
        "reading the history of office '" + office + "'");
  }

  /** Where the offices' history is written and read. */
  TermHistory history() {
    return history;
  }

  /** The id of the session's first lease now, or 0 when there is none ({@link #leaseIds()}). */
  public long leaseId() {
    LeaseKeeper.Lease lease = keeper.current();
    return lease == null ? 0 : lease.id;
  }

  /** Whether the session's first lease is granted and its deadline has not passed. */
  public boolean isAlive() {
    LeaseKeeper.Lease lease = keeper.current();
    return lease != null && lease.isAlive(ticker.nanoTime());
  }

  /** Why etcd could not be reached the last time the session asked, or "no attempt yet". */
  public String lastError() {
    return keeper.lastError();
  }

  /**
   * How many times a campaign of this session was woken by the deletion of the key just ahead of
   * it. A change of leader wakes exactly one waiting candidate (no herd).
   */
  public long wakeups() {
    return wakeups.get();
  }

  void countWakeup() {
    wakeups.incrementAndGet();
  }

  /** The session's one watch of its elections' deletions. */
  DeletionWatch deletions() {
    return deletions;
  }

  /**
   * How many etcd requests the groups of this session made (member reads, puts, watches), not
   * counting their elections' own: what a group adds to the session's cost.
   */
  public long groupRequests() {
    long sum = 0;
    for (OfficeGroup group : groups) {
      sum += ((EtcdOfficeGroup) group).requests();
    }
    return sum;
  }

  /** How many renewal rounds failed since the session opened, over all its leases. */
  public long renewalFailures() {
    return leases.renewalFailures();
  }

  /** The ids of the session's leases now, the first first; 0 for one not granted yet. */
  public List<Long> leaseIds() {
    return leases.all().stream()
        .map(LeaseKeeper::current)
        .map(lease -> lease == null ? 0L : lease.id)
        .toList();
  }

  /**
   * Closes every group of this session (they leave), every election (they resign), then revokes the
   * lease.
   */
  @Override
  public void close() {
    for (OfficeGroup group : groups) {
      group.close();
    }
    // Every office leaves at once, then each is closed: N offices take as long as the slowest of
    // their lose hooks, not the sum.
    for (FencedElection election : elections.values()) {
      election.closeAsync();
    }
    for (FencedElection election : elections.values()) {
      election.close();
    }
    synchronized (monitor) {
      if (closed) {
        return;
      }
      closed = true;
    }
    List<LeaseKeeper.Lease> held = leases.stop();
    deletions.close(); // before the revokes: their deletions are no one's business now
    // Every lease at once: a session of several leases closes in one round trip, not several.
    Map<LeaseKeeper.Lease, CompletableFuture<?>> revokes = new LinkedHashMap<>();
    for (LeaseKeeper.Lease last : held) {
      if (last.gone == null) {
        revokes.put(last, client.getLeaseClient().revoke(last.id));
      }
    }
    revokes.forEach(
        (last, revoke) -> {
          try {
            EtcdCalls.awaitUninterruptibly(revoke, options.timeout(), "revoking the lease");
          } catch (EtcdUnavailableException e) {
            log.warn(
                "could not revoke lease {} on close; it expires after its TTL: {}",
                last.hex(),
                e.getMessage());
          }
        });
  }

  Duration timeout() {
    return options.timeout();
  }

  Ticker ticker() {
    return ticker;
  }

  /** " at" where etcd is, for messages about a call that failed, when the client says. */
  String where() {
    return keeper.where();
  }

  LeaseKeeper keeper() {
    return keeper;
  }

  /** The candidate keys whose put may land after their candidate left ({@link GhostKeys}). */
  GhostKeys ghosts() {
    return ghosts;
  }

  /** The line the campaigns' requests wait in ({@link InFlight}). */
  InFlight requests() {
    return requests;
  }

  /** Runs {@code listener} after every renewal round and loss of the lease; returns how to stop. */
  Runnable listen(Runnable listener) {
    return keeper.listen(listener);
  }

  /** The current lease, granting one if there is none; fails after the call timeout. */
  CompletableFuture<LeaseKeeper.Lease> lease() {
    return keeper.lease();
  }

  /**
   * The lease {@code leases} keeps, for a campaign: its failure is said once for all offices. The
   * session's watch of deletions starts from the first lease's revision, before any read the
   * campaigns make.
   */
  CompletableFuture<LeaseKeeper.Lease> campaignLease(LeaseKeeper leases) {
    return campaignFailures
        .watch(leases.lease())
        .thenApply(
            lease -> {
              deletions.begin(lease.revision + 1);
              return lease;
            });
  }

  /** The offices of the elections of this session that are not closed. */
  private List<String> campaigningOffices() {
    return elections.entrySet().stream()
        .filter(entry -> entry.getValue().state() != State.CLOSED)
        .map(Map.Entry::getKey)
        .toList();
  }

  /** Where a campaign that failed for want of the lease is said, once for all offices. */
  CampaignFailureLog campaignFailures() {
    return campaignFailures;
  }

  /**
   * Runs {@code call} now and, if it fails, again after each renewal round until it succeeds or
   * etcd says the thing is gone: how a resign or revoke that failed is not forgotten. Never waits:
   * the returned future completes after the first attempt, whatever became of it.
   */
  CompletableFuture<Void> ensure(String what, Supplier<CompletableFuture<?>> call) {
    PendingAction action = new PendingAction(what, call, requests);
    return action
        .attempt(options.timeout())
        .thenAccept(
            done -> {
              if (!done) {
                synchronized (monitor) {
                  pending.add(action);
                }
              }
            });
  }

  /** How long a renewal attempt of this session may take, in nanoseconds. */
  private long attemptTimeoutNanos() {
    return keeper.budget().attemptTimeout().toNanos();
  }

  /** Makes sure etcd forgets a lost lease too, so that its keys go at once. */
  private void revoke(LeaseKeeper.Lease gone) {
    synchronized (monitor) {
      // Tried on the next tick without waiting: a new lease must not wait for an etcd that is away.
      pending.add(
          new PendingAction(
              "revoking lease " + gone.hex(),
              () -> client.getLeaseClient().revoke(gone.id),
              requests));
    }
  }

  /**
   * After every renewal round: one request at a time once a renewal failed, the pending actions,
   * and the watch mended if it broke.
   */
  private void tick() {
    long failures = leases.renewalFailures();
    if (renewalFailuresSeen.getAndSet(failures) != failures) {
      requests.strained();
    }
    retryPending();
    deletions.repair();
  }

  /**
   * Starts every pending action that is not already under way, without waiting for any: the lease
   * keeper must go on renewing and granting while etcd is away.
   */
  private void retryPending() {
    List<PendingAction> due;
    synchronized (monitor) {
      due = List.copyOf(pending);
    }
    for (PendingAction action : due) {
      action.launch(
          options.timeout(),
          () -> {
            synchronized (monitor) {
              pending.remove(action);
            }
          });
    }
  }
}
