package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.await;

import dev.conch.Durations;
import dev.conch.EtcdUnavailableException;
import dev.conch.LossReason;
import dev.conch.Ticker;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one lease of a session ({@link Leases}): grants it, renews it on its {@link RenewalBudget},
 * and in the same round reads, in one request for up to 128 keys (fewer when etcd's {@code
 * --max-txn-ops} is lower: learned from its refusal), the keys of the terms held on it (do they
 * still exist?) and the keys its followers wait behind (are they gone?), on a monotonic clock. The
 * renewal and the read go out side by side, and an attempt not answered in time stays open beside
 * the next ({@link OpenAttempts}, {@link #hedged}).
 *
 * <p>The rounds of every lease of the process run on a few shared threads ({@link #ROUNDS}, {@code
 * conch-lease-<n>}), one round of a lease at a time; between rounds a lease holds no thread, only a
 * timer ({@link LendingPool#TIMER}). A round that waits longer than usual for etcd (a member away,
 * a raft election) has another thread lent beside it within 100 ms, so one slow lease never holds
 * up another's renewal for longer than that. Before, each lease had a thread of its own that slept
 * between rounds: 20 threads for the 20 leases of 10,000 offices in two sessions.
 *
 * <p>The local deadline D of the lease is the send time of the last acknowledged renewal plus the
 * TTL etcd granted: etcd cannot expire the lease before D. A held key is believed until the send
 * time of the last read that found it plus that TTL, so a key deleted by someone else is noticed
 * within one renew interval even when no watch delivers, and a key that cannot be confirmed is
 * given up as a lease that cannot be renewed would be. jetcd's own keep-alive is not used: it
 * measures on the wall clock and reports a loss only after the server has acted.
 *
 * <p>Longer than most files here, on purpose: grant, renewal, the confirming read of held keys and
 * the deadline D are one round, and split they would share every field.
 */
final class LeaseKeeper implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);

  /** etcd refuses transactions of more than 128 operations by default ({@code --max-txn-ops}). */
  private static final int KEYS_PER_CHECK = 128;

  /**
   * How many transactions a session's rounds spend on keys that only wake someone beyond the terms'
   * own ({@link #heldKeysOf}): 1 024 of them at etcd's default limit. A session of several leases
   * shares them out ({@link Leases}).
   */
  static final int BELT_TRANSACTIONS = 8;

  private static final GetOption KEYS_ONLY = GetOption.builder().withKeysOnly(true).build();

  /** etcd's error for a transaction over its {@code --max-txn-ops} (ErrGRPCTooManyOps). */
  static final String TOO_MANY_OPS = "too many operations in txn request";

  /**
   * The pace of renewals while etcd says it has no raft leader: the members forward a renewal to a
   * new leader 50 ms after the last try ({@code EtcdServer.LeaseRenew}), so waiting longer would
   * only add to the silence (a quarter attempt, 280 ms with conch elect's defaults, before).
   */
  static final Duration DURING_ELECTION = Duration.ofMillis(50);

  /**
   * The threads every lease's rounds run on: two, and one more lent beside each round that has run
   * 100 ms or longer. A round is a few milliseconds of sending and waiting for the answers when
   * etcd is well, so two threads serve hundreds of leases.
   */
  private static final LendingPool ROUNDS = new LendingPool("conch-lease", 2, null);

  /** After an unexpected failure, not sooner: a bug that fails every round must not spin. */
  private static final long RETRY_AFTER_UNEXPECTED = TimeUnit.MILLISECONDS.toNanos(100);

  private final Client client;
  private final SessionOptions options;
  private final Ticker ticker;
  private final Runnable onTick;
  private final Consumer<Lease> onRetired;
  private final IntSupplier belt;
  private final ConnectBackoff connectBackoff;
  // Where the client connects, when it says (the Spring module's client names its property).
  private final Optional<String> endpoints;
  private final Object monitor = new Object();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final Set<HeldKey> held = ConcurrentHashMap.newKeySet();
  private final AtomicLong renewalFailures = new AtomicLong();
  private final UnexpectedFailures unexpected = new UnexpectedFailures(log);
  // The steps' own (one step at a time, see stepping): the rounds so far (whose turn it is among
  // the keys that only wake someone, heldKeysOf), when the next is due, and the renewals and
  // confirming reads of the current lease still open.
  private long rounds;
  private boolean failing;
  private long nextAttempt;
  private long lastRound;
  private volatile @Nullable Thread stepper;
  private final OpenAttempts<LeaseKeepAliveResponse> renewals;
  private final OpenAttempts<Confirmation> reads;

  // The most operations etcd takes in one transaction, as far as this session knows: lowered on
  // etcd's refusal, by the keeper's reads (halving) or by a hand-over refused as too large.
  private final AtomicInteger keysPerCheck = new AtomicInteger(KEYS_PER_CHECK);

  // Guarded by monitor.
  private final List<CompletableFuture<Lease>> waiting = new ArrayList<>();
  private @Nullable Lease lease;
  private boolean wanted;
  private boolean closed;
  private Duration lossLead = Duration.ZERO;
  private RenewalBudget budget;
  private String lastError = "no attempt yet";
  private @Nullable String clientClosed;
  // Whether a step is queued or running; which timer may start the next (an older one is stale),
  // and that timer.
  private boolean stepping;
  private long timer;
  private @Nullable ScheduledFuture<?> next;

  /**
   * A keeper that asks nothing of etcd until {@link #lease} is called.
   *
   * @param belt how many transactions a round may spend on keys that only wake someone
   * @param onTick run after every round, on the round's thread; must not block
   * @param onRetired told of a lease given up (gone in etcd, or past its deadline)
   */
  LeaseKeeper(
      Client client,
      SessionOptions options,
      IntSupplier belt,
      Runnable onTick,
      Consumer<Lease> onRetired) {
    this.client = client;
    this.options = options;
    this.ticker = options.ticker();
    this.onTick = onTick;
    this.onRetired = onRetired;
    this.belt = belt;
    this.connectBackoff = new ConnectBackoff(client);
    this.endpoints =
        (client instanceof ForwardingClient forwarding) ? forwarding.endpoints() : Optional.empty();
    this.budget = budgetFor(Duration.ZERO, Duration.ZERO);
    this.renewals = new OpenAttempts<>(ticker, "lease renewal", LeaseKeeper::isNotFound);
    this.reads =
        new OpenAttempts<>(ticker, "confirming the leaders' keys", LeaseKeeper::isTooManyOps);
    this.nextAttempt = ticker.nanoTime();
    this.lastRound = nextAttempt;
  }

  /**
   * Makes the budget fit leaders that stop within {@code stopTimeout} and keep {@code safetyMargin}
   * free before the deadline. The budget follows the most demanding election the session ever had.
   *
   * @throws dev.conch.InvalidArgumentException when they cannot fit at all
   */
  RenewalBudget require(Duration stopTimeout, Duration safetyMargin) {
    RenewalBudget wanted = budgetFor(stopTimeout, safetyMargin);
    synchronized (monitor) {
      Duration lead = stopTimeout.plus(safetyMargin);
      if (lead.compareTo(lossLead) > 0) {
        lossLead = lead;
        budget = wanted;
        wake(); // the next round may be due sooner
      }
      return budget;
    }
  }

  private RenewalBudget budgetFor(Duration stopTimeout, Duration safetyMargin) {
    return RenewalBudget.of(
        options.ttl(), stopTimeout, safetyMargin, options.renewInterval(), options.timeout());
  }

  RenewalBudget budget() {
    synchronized (monitor) {
      return budget;
    }
  }

  /**
   * The current lease, granting one if there is none. Never waits: the future completes once the
   * lease is granted, or fails after the call timeout (naming etcd's last error) or on close.
   */
  CompletableFuture<Lease> lease() {
    CompletableFuture<Lease> granted = new CompletableFuture<>();
    synchronized (monitor) {
      if (closed) {
        return CompletableFuture.failedFuture(
            new EtcdUnavailableException("session is closed", null));
      }
      if (clientClosed != null) {
        return CompletableFuture.failedFuture(new LeaseUnavailableException(clientClosed, null));
      }
      if (lease != null && lease.gone == null) {
        return CompletableFuture.completedFuture(lease);
      }
      wanted = true;
      waiting.add(granted);
      wake();
    }
    String where = where();
    // Not the JDK's default executor: on two cores that starts a thread for each task.
    CompletableFuture.delayedExecutor(
            options.timeout().toNanos(), TimeUnit.NANOSECONDS, CallThreads.executor())
        .execute(
            () -> {
              if (granted.isDone()) {
                return;
              }
              synchronized (monitor) {
                waiting.remove(granted);
              }
              granted.completeExceptionally(
                  new LeaseUnavailableException(
                      "could not get a lease from etcd"
                          + where
                          + " within "
                          + Durations.format(options.timeout())
                          + ": "
                          + lastError(),
                      null));
            });
    return granted;
  }

  /** " at" where the client connects, for messages, when the client says; else empty. */
  String where() {
    return endpoints.map(described -> " at " + described).orElse("");
  }

  /** The current lease, or null. */
  @Nullable Lease current() {
    synchronized (monitor) {
      return lease;
    }
  }

  /** Why etcd could not be reached the last time it was asked. */
  String lastError() {
    synchronized (monitor) {
      return lastError;
    }
  }

  long renewalFailures() {
    return renewalFailures.get();
  }

  /** Runs {@code listener} after every round (a renewal or a loss); returns how to stop. */
  Runnable listen(Runnable listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /** Reads {@code key} in every round from now on, until the returned action is run. */
  Runnable hold(HeldKey key) {
    held.add(key);
    return () -> held.remove(key);
  }

  /**
   * Stops the rounds, waiting for one under way (at most the call timeout and a second), and
   * returns the lease it held (not revoked here), or null.
   */
  @Nullable Lease stop() {
    @Nullable Lease last;
    List<CompletableFuture<Lease>> told;
    synchronized (monitor) {
      closed = true;
      dropTimer();
      last = lease;
      told = List.copyOf(waiting);
      waiting.clear();
    }
    told.forEach(
        future ->
            future.completeExceptionally(new EtcdUnavailableException("session is closed", null)));
    long until = System.nanoTime() + options.timeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
    synchronized (monitor) {
      // Not when a round's own listener stops it: that round ends as soon as this returns.
      while (stepping && stepper != Thread.currentThread()) {
        long left = until - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(monitor, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    return last;
  }

  @Override
  public void close() {
    stop();
  }

  /** Starts a step now unless one is queued or running (that one sees what changed). */
  private void wake() {
    synchronized (monitor) {
      if (stepping || closed) {
        return;
      }
      stepping = true;
      dropTimer();
    }
    ROUNDS.execute(this::step);
  }

  /** The timer set for the next step starts nothing, even one already going off (under monitor). */
  private void dropTimer() {
    timer++;
    if (next != null) {
      next.cancel(false);
      next = null;
    }
  }

  /** A timer set at the end of a step went off: the step it was set for, unless another began. */
  private void fire(long which) {
    synchronized (monitor) {
      if (which != timer || stepping || closed) {
        return;
      }
      stepping = true;
    }
    ROUNDS.execute(this::step);
  }

  /**
   * The round that is due, if one is: then this step again, behind the other leases' work queued
   * meanwhile; else a timer for the next, and the thread is free. Never two steps of a keeper at
   * once ({@link #stepping}).
   */
  private void step() {
    Lease current;
    RenewalBudget plan;
    synchronized (monitor) {
      // A budget tightened since the last round (a new office) applies to the next one.
      long due =
          failing ? nextAttempt : Math.min(nextAttempt, lastRound + budget.interval().toNanos());
      long wait = due - ticker.nanoTime();
      if (closed || !wanted || wait > 0) {
        stepping = false;
        if (closed) {
          monitor.notifyAll(); // stop() may wait for this step
        } else if (wanted) {
          long which = ++timer;
          next = LendingPool.TIMER.schedule(() -> fire(which), wait, TimeUnit.NANOSECONDS);
        } // else: lease() wakes it
        return;
      }
      current = lease;
      plan = budget;
    }
    stepper = Thread.currentThread();
    try {
      round(current, plan);
    } finally {
      stepper = null;
      ROUNDS.execute(this::step);
    }
  }

  /** One round: a grant, or a renewal with the confirming read; or a lease given up retired. */
  private void round(@Nullable Lease current, RenewalBudget plan) {
    if (current != null && current.gone != null) {
      retire(current);
      return;
    }
    long sendAt = ticker.nanoTime();
    try {
      if (current == null) {
        grant(sendAt, plan);
      } else {
        renewAndConfirm(current, sendAt, plan);
      }
      failing = false;
      lastRound = sendAt;
      nextAttempt = sendAt + plan.interval().toNanos();
    } catch (EtcdUnavailableException e) {
      nextAttempt = sendAt + retryDelay(current, plan, e);
      failed(current, e, !failing);
      failing = true;
    } catch (InterruptedException | RuntimeException | Error e) {
      // A bug, a client that cannot be built, an interrupt of a pool thread: the round failed like
      // one etcd did not answer, and the deadline D still fails closed. A keeper that ended here
      // would end every term later.
      unexpected.report("lease round", e);
      nextAttempt = sendAt + Math.max(retryDelay(current, plan, e), RETRY_AFTER_UNEXPECTED);
      failed(current, e, !failing);
      failing = true;
    }
    tellListeners();
  }

  /** A failed round: the lease is gone, or failing until its deadline, or the client is closed. */
  private void failed(@Nullable Lease current, Throwable e, boolean firstFailure) {
    String error = EtcdCalls.describe(e);
    boolean closedClient = UnexpectedFailures.isClientClosed(e);
    List<CompletableFuture<Lease>> told = List.of();
    String reason;
    synchronized (monitor) {
      lastError = error;
      if (closedClient && clientClosed == null) {
        clientClosed = "the etcd client of this session is closed (" + error + ")";
        wanted = false; // nothing to grant with: lease() refuses from now on
        told = List.copyOf(waiting);
        waiting.clear();
      }
      reason = clientClosed != null ? clientClosed : error;
    }
    if (closedClient) {
      told.forEach(
          future -> future.completeExceptionally(new LeaseUnavailableException(reason, e)));
      if (current != null && current.gone == null) {
        // It can never be renewed again: its terms end now, not at the deadline.
        current.gone = LossReason.RENEWAL_FAILED;
        log.error("lease {} given up: {}", current.hex(), reason);
      }
      return;
    }
    connectBackoff.reset();
    if (current == null) {
      // No lease yet: nothing held, nothing to lose.
    } else if (isNotFound(e)) {
      current.gone = LossReason.LEASE_EXPIRED;
      log.warn("lease {} is gone in etcd", current.hex());
    } else {
      renewalFailures.incrementAndGet();
      if (firstFailure) {
        log.warn(
            "lease {} renewal failed{}, retrying until its deadline: {}",
            current.hex(),
            where(),
            error);
      }
      if (ticker.nanoTime() - current.validUntil >= 0) {
        // etcd may have expired it by now: whoever is next may lead already.
        current.gone = LossReason.LEASE_EXPIRED;
        log.warn("lease {} passed its deadline without renewal", current.hex());
      }
    }
  }

  /** Tells the listeners and the session of a round; one that throws stops none of the others. */
  private void tellListeners() {
    for (Runnable listener : listeners) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        unexpected.report("a listener of the lease", e);
      }
    }
    try {
      onTick.run();
    } catch (RuntimeException e) {
      unexpected.report("the session's tick", e);
    }
  }

  /**
   * After a failure: a renewal again at once after a timeout (round-robin sends it to the next
   * endpoint, and the attempt that timed out stays open beside it); {@link #DURING_ELECTION} later
   * after a member said it has no raft leader (etcd is electing one, and answers again the moment
   * it has); a quarter attempt later after any other call that failed fast (no connection), so that
   * an etcd that is away is not hammered; a grant, where nothing is held yet, at a calmer pace.
   */
  private static long retryDelay(@Nullable Lease current, RenewalBudget plan, Throwable failure) {
    if (current == null) {
      return Math.min(plan.interval().toNanos(), TimeUnit.MILLISECONDS.toNanos(500));
    }
    if (failure.getCause() instanceof TimeoutException) {
      return 0;
    }
    long calm = plan.afterFastFailure().toNanos();
    return isElecting(failure) ? Math.min(calm, DURING_ELECTION.toNanos()) : calm;
  }

  /**
   * Whether etcd said it is between raft leaders: "no leader" (a require-leader call on a member
   * without one; the renewals are such calls) or "leader changed" (a linearizable read that a
   * leader change cut short).
   */
  static boolean isElecting(Throwable error) {
    for (Throwable t = error; t != null && t.getCause() != t; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null
          && (message.contains("etcdserver: no leader")
              || message.contains("etcdserver: leader changed"))) {
        return true;
      }
    }
    return false;
  }

  private void grant(long sendAt, RenewalBudget plan) throws InterruptedException {
    long ttl = options.ttl().toSeconds();
    // Not longer than a renewal round (at least a second): a grant stuck on a member that is away
    // must not hold up the one that succeeds elsewhere; an abandoned grant holds no keys and its
    // RPC ends at its deadline.
    Duration timeout = min(options.timeout(), max(plan.interval(), Duration.ofSeconds(1)));
    LeaseGrantResponse granted =
        await(
            client.getLeaseClient().grant(ttl, timeout.toNanos(), TimeUnit.NANOSECONDS),
            timeout,
            "lease grant");
    Lease fresh =
        new Lease(
            this, granted.getID(), sendAt + TimeUnit.SECONDS.toNanos(granted.getTTL()), granted);
    renewals.clear(); // a late "not found" of the lease before must not end this one
    reads.clear();
    List<CompletableFuture<Lease>> told;
    synchronized (monitor) {
      lease = fresh;
      told = List.copyOf(waiting);
      waiting.clear();
    }
    told.forEach(future -> future.complete(fresh));
    Duration grantedTtl = Duration.ofSeconds(granted.getTTL());
    if (grantedTtl.equals(options.ttl())) {
      log.info("lease {} granted (ttl {})", fresh.hex(), Durations.format(grantedTtl));
    } else {
      // etcd raises a TTL below its minimum (1.5 election timeouts, rounded up to a second): the
      // lease lives longer than the timing budget printed for the TTL asked for assumed.
      Duration later = grantedTtl.minus(options.ttl());
      log.warn(
          "lease {} granted with ttl {}, not the {} asked for that the timing budget assumed{}",
          fresh.hex(),
          Durations.format(grantedTtl),
          Durations.format(options.ttl()),
          later.isNegative()
              ? ""
              : " (etcd's minimum TTL is longer): a crashed leader is replaced up to "
                  + Durations.format(later)
                  + " later than it says");
    }
  }

  /**
   * Renews {@code current} and reads its held keys, both sent at {@code sendAt}, side by side: a
   * renewal never waits behind a read. Each is waited for at most the attempt timeout; an attempt
   * of an earlier round still open may be the one answered ({@link OpenAttempts}), and counts by
   * its own send time.
   */
  private void renewAndConfirm(Lease current, long sendAt, RenewalBudget plan)
      throws InterruptedException {
    long left = current.validUntil - sendAt;
    long wait = Math.max(1, Math.min(left, plan.attemptTimeout().toNanos()));
    long until = sendAt + wait;
    renewals.add(sendAt, client.getLeaseClient().keepAliveOnce(current.id));
    List<HeldKey> keys = heldKeysOf(current);
    if (keys.isEmpty()) {
      reads.clear();
    } else {
      reads.add(sendAt, confirmRead(keys));
    }
    hedged(
        renewals,
        until,
        wait,
        () -> client.getLeaseClient().keepAliveOnce(current.id),
        renewed -> {
          current.ttlNanos = TimeUnit.SECONDS.toNanos(renewed.value().getTTL());
          long validUntil = renewed.sentAt() + current.ttlNanos;
          if (validUntil - current.validUntil > 0) {
            current.validUntil = validUntil;
          }
        });
    if (keys.isEmpty()) {
      return;
    }
    while (true) {
      try {
        hedged(
            reads,
            until,
            wait,
            () -> confirmRead(keys),
            confirmed ->
                confirmed.value().apply(confirmed.sentAt() + current.ttlNanos, unexpected));
        return;
      } catch (EtcdUnavailableException e) {
        int size = keysPerCheck.get();
        if (!isTooManyOps(e) || size == 1) {
          throw e;
        }
        // An etcd with a lower --max-txn-ops than its default: learn it once, in this round.
        int fewer = keysPerCheck.accumulateAndGet(Math.max(1, size / 2), Math::min);
        log.warn(
            "etcd refused {} reads in one transaction (its --max-txn-ops is lower); confirming"
                + " held keys {} at a time from now on",
            size,
            fewer);
        reads.clear();
        reads.add(ticker.nanoTime(), confirmRead(keys));
      }
    }
  }

  /**
   * Waits for {@code attempts} until {@code until}, and sends another attempt beside the open ones
   * each quarter of the round's {@code wait} that passes unanswered: after a raft leader change the
   * members answer again one after another, and an attempt stuck on one that is still catching up
   * (a paused member, a read index the new leader dropped) holds up only itself.
   *
   * @throws EtcdUnavailableException as {@link OpenAttempts#await}, a timeout naming the whole wait
   */
  private <T> void hedged(
      OpenAttempts<T> attempts,
      long until,
      long wait,
      Supplier<CompletableFuture<T>> send,
      Consumer<OpenAttempts.Answer<T>> onAnswer)
      throws InterruptedException {
    long hedge = Math.max(wait / 4, TimeUnit.MILLISECONDS.toNanos(10));
    while (true) {
      long left = until - ticker.nanoTime();
      try {
        attempts.await(Duration.ofNanos(Math.max(1, Math.min(hedge, left))), onAnswer);
        return;
      } catch (EtcdUnavailableException e) {
        if (!(e.getCause() instanceof TimeoutException)) {
          throw e;
        }
        if (until - ticker.nanoTime() <= 0) {
          throw attempts.timedOut(Duration.ofNanos(wait), e);
        }
        attempts.add(ticker.nanoTime(), send.get());
      }
    }
  }

  /**
   * The keys this round reads: every term's own key, and of the keys that only wake someone (a
   * follower's predecessor, a ghost key's guard) as many as fill the terms' last transaction and
   * {@link #BELT_TRANSACTIONS} more. When there are more of those, each is read every n-th round
   * (by its identity, so each in turn), n as small as lets them fit: a session of 10 000 followers
   * sends 8 transactions a round, not 79, and its rounds stay short enough for the renewal beside
   * them. Their watches tell of a deletion at once; the round only catches one a watch missed.
   */
  private List<HeldKey> heldKeysOf(Lease current) {
    List<HeldKey> terms = new ArrayList<>();
    List<HeldKey> wakers = new ArrayList<>();
    for (HeldKey key : held) {
      if (key.leaseId() == current.id) {
        (key.confirmsTerm() ? terms : wakers).add(key);
      }
    }
    return roundOf(
        terms, wakers, keysPerCheck.get(), belt.getAsInt(), rounds++, System::identityHashCode);
  }

  /**
   * What round {@code round} reads ({@link #heldKeysOf}): all of {@code terms}, and those of {@code
   * wakers} whose turn it is, at {@code perTransaction} keys a transaction and {@code belt}
   * transactions beyond the terms' last; {@code turn} spreads the wakers over the rounds.
   */
  static <K> List<K> roundOf(
      List<K> terms,
      List<K> wakers,
      int perTransaction,
      int belt,
      long round,
      ToIntFunction<K> turn) {
    List<K> keys = new ArrayList<>(terms);
    long transactions = (terms.size() + perTransaction - 1) / perTransaction + belt;
    long room = perTransaction * transactions - terms.size();
    long every = (wakers.size() + room - 1) / room;
    for (K key : wakers) {
      if (every <= 1 || Math.floorMod(turn.applyAsInt(key), every) == round % every) {
        keys.add(key);
      }
    }
    return keys;
  }

  /**
   * Reads {@code keys} in linearizable transactions of up to {@link #keysPerCheck} gets: one
   * request for all but the largest sessions. Keys only: a check reads a key's create revision and
   * lease, never its value (a holder's record is several times the size of its key).
   */
  private CompletableFuture<Confirmation> confirmRead(List<HeldKey> keys) {
    int size = keysPerCheck.get();
    List<List<HeldKey>> chunks = new ArrayList<>();
    List<CompletableFuture<TxnResponse>> answers = new ArrayList<>();
    for (int from = 0; from < keys.size(); from += size) {
      List<HeldKey> chunk = keys.subList(from, Math.min(keys.size(), from + size));
      Op[] gets = new Op[chunk.size()];
      for (int i = 0; i < gets.length; i++) {
        gets[i] = Op.get(chunk.get(i).key(), KEYS_ONLY);
      }
      chunks.add(chunk);
      answers.add(client.getKVClient().txn().Then(gets).commit());
    }
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(all -> new Confirmation(chunks, answers.stream().map(a -> a.join()).toList()));
  }

  /** A confirming read's answer: each chunk of held keys with the transaction that read it. */
  private record Confirmation(List<List<HeldKey>> chunks, List<TxnResponse> answers) {

    /** Tells each key what was found; a key found is believed until {@code validUntil}. */
    void apply(long validUntil, UnexpectedFailures unexpected) {
      for (int c = 0; c < chunks.size(); c++) {
        List<HeldKey> chunk = chunks.get(c);
        TxnResponse read = answers.get(c);
        long revision = read.getHeader().getRevision();
        List<GetResponse> found = read.getGetResponses();
        for (int i = 0; i < chunk.size(); i++) {
          try {
            chunk.get(i).read(found.get(i).getKvs(), validUntil, revision);
          } catch (RuntimeException e) {
            unexpected.report("a held key's check", e); // the other keys' checks go on
          }
        }
      }
    }
  }

  /**
   * The most operations etcd takes in one transaction as far as this session knows: 128 (etcd's
   * default {@code --max-txn-ops}) until etcd refused a larger one.
   */
  int maxTxnOps() {
    return keysPerCheck.get();
  }

  /** etcd refused a transaction of {@code ops} operations (or compares) as too large. */
  void refusedTxnOps(int ops) {
    int before = keysPerCheck.get();
    int now = keysPerCheck.accumulateAndGet(Math.max(1, ops - 1), Math::min);
    if (now < before) {
      log.warn(
          "etcd refused a transaction of {} operations (its --max-txn-ops is lower); at most {}"
              + " from now on",
          ops,
          now);
    }
  }

  /** etcd's answer to a transaction of more operations than its {@code --max-txn-ops}. */
  static boolean isTooManyOps(Throwable error) {
    for (Throwable t = error; t != null && t.getCause() != t; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains(TOO_MANY_OPS)) {
        return true;
      }
    }
    return false;
  }

  /** Forgets a lost lease; the session makes sure etcd forgets it too, so that its keys go. */
  private void retire(Lease gone) {
    renewals.clear();
    reads.clear();
    synchronized (monitor) {
      if (lease == gone) {
        lease = null;
      }
    }
    try {
      onRetired.accept(gone);
    } catch (RuntimeException e) {
      unexpected.report("retiring the lease", e);
    }
    tellListeners();
  }

  static boolean isNotFound(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof EtcdException etcd && etcd.getErrorCode() == ErrorCode.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * A key read in the rounds of a lease: a term's own key (every round), or a key whose deletion
   * only wakes someone, such as the key a follower waits behind (every round while they fit, see
   * {@link #heldKeysOf}).
   */
  interface HeldKey {

    /**
     * Whether the term's validity rests on this key's reads ({@link #confirmed} extends it): then
     * it is read in every round. Otherwise a missed read only delays whom its deletion wakes.
     */
    default boolean confirmsTerm() {
      return true;
    }

    /** The lease in whose rounds the key is read. */
    long leaseId();

    /** The key. */
    ByteSequence key();

    /** Its create revision: a key of that name with another one is not this key. */
    long rev();

    /**
     * The key was there in a round sent before it: it is believed until {@code validUntil} (a
     * {@link Ticker} time); {@code revision} is the revision etcd read it at.
     */
    void confirmed(long validUntil, long revision);

    /** The key is gone (or is another key now). */
    void missing();

    /**
     * What a round read of the key: {@code found} are its versions (none or one), believed until
     * {@code validUntil}, read at {@code revision}. Tells {@link #confirmed} or {@link #missing}.
     */
    default void read(List<KeyValue> found, long validUntil, long revision) {
      if (found.stream().anyMatch(kv -> kv.getCreateRevision() == rev())) {
        confirmed(validUntil, revision);
      } else {
        missing();
      }
    }
  }

  /** The session's lease: valid until {@code validUntil} unless {@code gone} says why not. */
  static final class Lease {
    // Who renews it: where its keys are held and its rounds listened to.
    final LeaseKeeper keeper;
    final long id;
    // The revision etcd answered the grant at: every read made with the lease is at it or later.
    final long revision;
    volatile long validUntil;
    volatile long ttlNanos;
    volatile @Nullable LossReason gone;

    Lease(LeaseKeeper keeper, long id, long validUntil, LeaseGrantResponse granted) {
      this.keeper = keeper;
      this.id = id;
      this.revision = granted.getHeader().getRevision();
      this.validUntil = validUntil;
      this.ttlNanos = TimeUnit.SECONDS.toNanos(granted.getTTL());
    }

    /** Whether etcd cannot have expired it by {@code now} (a {@link Ticker} time). */
    boolean isAlive(long now) {
      return gone == null && now - validUntil < 0;
    }

    String hex() {
      return Long.toHexString(id);
    }
  }
}
