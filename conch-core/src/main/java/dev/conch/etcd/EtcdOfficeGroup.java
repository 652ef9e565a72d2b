package dev.conch.etcd;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.EtcdUnavailableException;
import dev.conch.GroupOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.NotLeaderException;
import dev.conch.OfficeGroup;
import dev.conch.State;
import dev.conch.Ticker;
import dev.conch.TransferRefusedException;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link OfficeGroup} in etcd: one member key and one watch ({@link GroupMembership}), and one
 * named daemon thread that gathers what this member leads, publishes its count when it changes, and
 * makes the moves {@link ShareRule} asks for, one at a time, by {@link Election#transfer(String)}.
 *
 * <p>Nothing moves until the membership (who is in the group, at which priority) has been unchanged
 * for the delay, so that a rolling restart or a bounce does not move an office twice; and after a
 * move nothing moves until the target's published count shows it (or {@link #settleBound} passed),
 * so that the next decision is made on what the others see too.
 */
final class EtcdOfficeGroup implements OfficeGroup {

  private static final Logger log = LoggerFactory.getLogger(OfficeGroup.class);

  /** The belt: a full read this often even while the watch seems fine. */
  static final Duration RESYNC = Duration.ofSeconds(30);

  /** How often the thread looks again at terms, tenures and canMove while nothing wakes it. */
  private static final long TICK = TimeUnit.MILLISECONDS.toNanos(250);

  /** Count changes closer together than this are written once: a burst of wins, one put. */
  private static final long COALESCE = TimeUnit.MILLISECONDS.toNanos(50);

  /**
   * A target whose count changed more recently is not given an office yet: its count may not show
   * the offices others handed it at the same time (each writes its count after a burst), and giving
   * on a count that is too low overshoots and costs a move back.
   */
  private static final long QUIET = TimeUnit.MILLISECONDS.toNanos(150);

  /** The pause before reading again while etcd does not answer. */
  private static final long RETRY = TimeUnit.SECONDS.toNanos(1);

  private static final Object WAKE = new Object();

  private final EtcdSession session;
  private final GroupOptions options;
  private final String self;
  private final Ticker ticker;
  private final GroupMembership membership;
  private final BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
  private final Map<String, Office> offices = new ConcurrentHashMap<>();
  private final List<Consumer<Move>> listeners = new CopyOnWriteArrayList<>();
  private final Runnable stopListening;
  private final Thread thread;
  private final long settleBound;

  private volatile boolean closed;
  private volatile List<Member> shown = List.of();

  // The group's thread alone uses these.
  private String membershipSignature = "";
  private long membershipChangedAt;
  private boolean stale = true;
  private long resyncAt;
  private long lastPublish;
  private @Nullable Pending pending;
  private boolean outage;
  private boolean transferMissing;
  private @Nullable String refused;
  private long lookAgain = TICK;

  /** One office of the group: its election, canMove, and the term the group saw begin. */
  private static final class Office {
    final Election election;
    final BooleanSupplier canMove;
    final AutoCloseable listening;
    long token;
    long since;

    Office(Election election, BooleanSupplier canMove, AutoCloseable listening) {
      this.election = election;
      this.canMove = canMove;
      this.listening = listening;
    }
  }

  /** A move made, until the target's published count shows it or the bound passed. */
  private record Pending(String target, int leadsBefore, long until) {}

  EtcdOfficeGroup(EtcdSession session, GroupOptions options) {
    this.session = session;
    this.options = options;
    this.self = options.memberId();
    this.ticker = session.ticker();
    this.membership = new GroupMembership(session, options.name(), self, options.priority());
    this.settleBound = session.timeout().toNanos();
    this.membershipChangedAt = ticker.nanoTime();
    this.stopListening = session.listen(this::wake);
    this.thread = new Thread(this::run, "conch-group-" + options.name());
    this.thread.setDaemon(true);
    this.thread.start();
  }

  @Override
  public String name() {
    return options.name();
  }

  @Override
  public void add(Election election, BooleanSupplier canMove) {
    Objects.requireNonNull(canMove, "canMove");
    String id = election.candidate().id();
    if (!self.equals(id)) {
      throw new InvalidArgumentException(
          "election",
          id,
          "an election of office '"
              + election.office()
              + "' with candidate id '"
              + self
              + "', this member's id: offices are handed to members by that id");
    }
    AutoCloseable listening =
        election.addListener(
            event -> {
              if (!(event instanceof ElectionEvent.LeaderObserved)) {
                wake();
              }
            });
    Office before =
        offices.putIfAbsent(election.office(), new Office(election, canMove, listening));
    if (before != null) {
      closeQuietly(listening);
      throw new IllegalStateException(
          "office '" + election.office() + "' is already in group '" + options.name() + "'");
    }
    wake();
  }

  @Override
  public List<Member> members() {
    return shown;
  }

  @Override
  public AutoCloseable addListener(Consumer<Move> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return () -> listeners.remove(listener);
  }

  /** How many etcd requests the group made (its reads, puts and watches; not the elections'). */
  long requests() {
    return membership.requests();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopListening.run();
    wake();
    try {
      // A move under way ends first: it is bounded by the election's own timeouts.
      thread.join(session.timeout().toMillis() * 2);
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(session.timeout().toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Office office : offices.values()) {
      closeQuietly(office.listening);
    }
  }

  private void wake() {
    inbox.offer(WAKE);
  }

  private void run() {
    resyncAt = ticker.nanoTime();
    try {
      while (!closed) {
        long wait;
        try {
          step();
          wait = lookAgain;
          if (outage) {
            log.info("group {}: etcd answers again", options.name());
            outage = false;
          }
        } catch (EtcdUnavailableException e) {
          if (!outage) {
            log.warn(
                "group {}: etcd unreachable ({}); nothing moves until it answers",
                options.name(),
                e.getMessage());
            outage = true;
          }
          stale = true;
          wait = RETRY;
        } catch (RuntimeException e) {
          log.warn("group {}: unexpected failure, trying again", options.name(), e);
          stale = true;
          wait = RETRY;
        }
        lookAgain = TICK;
        take(inbox.poll(wait, TimeUnit.NANOSECONDS));
      }
    } catch (InterruptedException e) {
      // Closing: leave below.
    } finally {
      leave();
    }
  }

  /** Applies what arrived, and whatever else is waiting: a burst of events, one step. */
  private void take(@Nullable Object first) {
    for (Object item = first; item != null; item = inbox.poll()) {
      if (item instanceof GroupMembership.WatchItem watched
          && watched.generation() == membership.generation()) {
        List<WatchEvent> events = watched.events();
        if (events == null) {
          stale = true;
        } else {
          membership.apply(events);
        }
      }
    }
  }

  /** One look: the view, the lease, the count, the membership's age, and maybe one move. */
  private void step() throws InterruptedException {
    long now = ticker.nanoTime();
    if (stale || now - resyncAt >= 0) {
      membership.resync(inbox::add);
      stale = false;
      resyncAt = now + RESYNC.toNanos();
    }
    List<ShareRule.Office> led = led(now);
    publish(led.size(), now);
    List<Member> seen = membership.members();
    show(seen, led.size());
    String signature = signature(seen);
    if (!signature.equals(membershipSignature)) {
      membershipSignature = signature;
      membershipChangedAt = now;
    }
    if (now - membershipChangedAt < options.delay().toNanos() || settling(seen, now)) {
      return;
    }
    Optional<ShareRule.Plan> plan =
        ShareRule.decide(seen, self, led, options.minTenure().toNanos(), offices.size());
    if (plan.isEmpty()) {
      refused = null;
      return;
    }
    // A plan every target refused is not tried again until something it depends on changed:
    // an idle group asks nothing of etcd.
    String situation = situation(seen, plan.get());
    if (!situation.equals(refused) && !move(plan.get(), seen)) {
      refused = situation;
    }
  }

  private static String situation(List<Member> seen, ShareRule.Plan plan) {
    StringBuilder situation = new StringBuilder(plan.toString());
    for (Member member : seen) {
      situation.append('\u0000').append(member.id()).append(':').append(member.leads());
    }
    return situation.toString();
  }

  /** The offices this member leads now, each with the age of its term as the group saw it. */
  private List<ShareRule.Office> led(long now) {
    List<ShareRule.Office> led = new ArrayList<>();
    for (Map.Entry<String, Office> entry : offices.entrySet()) {
      Office office = entry.getValue();
      if (office.election.state() == State.CLOSED) {
        offices.remove(entry.getKey(), office);
        closeQuietly(office.listening);
        continue;
      }
      OptionalLong token = office.election.token();
      if (token.isEmpty() || !office.election.isLeader()) {
        office.token = 0;
        continue;
      }
      if (office.token != token.getAsLong()) {
        office.token = token.getAsLong();
        office.since = now;
      }
      led.add(new ShareRule.Office(entry.getKey(), now - office.since, canMove(office)));
    }
    return led;
  }

  private boolean canMove(Office office) {
    try {
      return office.canMove.getAsBoolean();
    } catch (RuntimeException e) {
      log.warn(
          "group {}: canMove of office {} failed", options.name(), office.election.office(), e);
      return false;
    }
  }

  /** Writes the member key on the current lease with the count, when either changed. */
  private void publish(int leads, long now) throws InterruptedException {
    LeaseKeeper.Lease lease = session.keeper().current();
    if (lease == null || !lease.isAlive(now)) {
      membership.unpublished();
      lease = EtcdCalls.await(session.lease(), session.timeout(), "getting a lease for the group");
    }
    boolean newLease = lease.id != membership.putLease();
    if (!newLease && leads != membership.putLeads() && now - lastPublish < COALESCE) {
      return; // the tick after the burst writes it
    }
    if (membership.publish(lease, leads)) {
      lastPublish = now;
    }
  }

  private void show(List<Member> seen, int leads) {
    List<Member> members = new ArrayList<>(seen.size());
    for (Member member : seen) {
      members.add(member.self() ? new Member(member.id(), member.priority(), leads, true) : member);
    }
    shown = List.copyOf(members);
  }

  /** Who is in the group at which priority: what, when it changes, restarts the delay. */
  private static String signature(List<Member> members) {
    StringBuilder signature = new StringBuilder();
    for (Member member : members) {
      signature.append(member.id()).append('\u0000').append(member.priority()).append('\u0000');
    }
    return signature.toString();
  }

  /** Whether the last move is not visible yet in the target's published count (and may be). */
  private boolean settling(List<Member> seen, long now) {
    Pending last = pending;
    if (last == null) {
      return false;
    }
    Optional<Member> target = seen.stream().filter(m -> m.id().equals(last.target())).findFirst();
    if (target.isEmpty() || target.get().leads() != last.leadsBefore() || now - last.until() >= 0) {
      pending = null;
      return false;
    }
    return true;
  }

  /**
   * Tries the plan's offices and targets in order until one hand-over succeeds.
   *
   * @return whether one did
   */
  private boolean move(ShareRule.Plan plan, List<Member> seen) {
    for (String name : plan.offices()) {
      Office office = offices.get(name);
      if (office == null || !office.election.isLeader()) {
        continue;
      }
      long token = office.election.token().orElse(0);
      for (String target : plan.targets()) {
        if (closed) {
          return false;
        }
        long sinceChange = ticker.nanoTime() - membership.changedAt(target);
        if (sinceChange >= 0 && sinceChange < QUIET) {
          // Not refused: looked at again once its count has been still for QUIET.
          lookAgain = Math.max(1, QUIET - sinceChange);
          return true;
        }
        try {
          office.election.transfer(target);
        } catch (TransferRefusedException e) {
          log.debug(
              "group {}: {} not handed to {}: {}", options.name(), name, target, e.getMessage());
          continue;
        } catch (NotLeaderException e) {
          break;
        } catch (UnsupportedOperationException e) {
          if (!transferMissing) {
            log.warn(
                "group {}: elections cannot hand over by name: {}", options.name(), e.getMessage());
            transferMissing = true;
          }
          return false;
        }
        int before =
            seen.stream()
                .filter(m -> m.id().equals(target))
                .mapToInt(Member::leads)
                .findFirst()
                .orElse(0);
        pending = new Pending(target, before, ticker.nanoTime() + settleBound);
        log.info(
            "group {}: handed office {} (token {}) to {} ({})",
            options.name(),
            name,
            token,
            target,
            plan.reason());
        tell(new Move(name, target, token, plan.reason()));
        wake();
        return true;
      }
    }
    return false;
  }

  private void tell(Move move) {
    for (Consumer<Move> listener : listeners) {
      try {
        listener.accept(move);
      } catch (RuntimeException e) {
        log.warn("group {}: a move listener failed", options.name(), e);
      }
    }
  }

  private void leave() {
    try {
      membership.leave();
    } catch (EtcdUnavailableException e) {
      log.warn(
          "group {}: could not delete member key {}; it goes with the lease: {}",
          options.name(),
          membership.selfKey(),
          e.getMessage());
    } catch (InterruptedException e) {
      membership.closeWatch();
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      log.debug("closing a listener failed", e);
    }
  }
}
