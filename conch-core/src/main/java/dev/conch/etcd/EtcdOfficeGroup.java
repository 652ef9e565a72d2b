package dev.conch.etcd;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.EtcdUnavailableException;
import dev.conch.GroupOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.OfficeGroup;
import dev.conch.State;
import dev.conch.Ticker;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
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
 * named daemon thread that gathers what this member leads, publishes its count and whether it
 * receives when either changes, and starts the moves {@link ShareRule} asks for, one at a time;
 * each move runs on a thread of its own ({@link GroupMove}), so that the group's thread goes on
 * publishing and reading while the office's lose hooks run.
 *
 * <p>Nothing moves until the membership (who is in the group, at which priority) has been unchanged
 * for the delay, so that a rolling restart or a bounce does not move an office twice; and after a
 * move nothing moves until the target's published count shows it (or {@link #settleBound} passed),
 * so that the next decision is made on what the others see too.
 *
 * <p>What {@link ShareRule} is told of the others ({@link GroupTargets}): after a refusal the
 * member waits {@link GroupOptions#delay()} (at least 1 s) before it gives again; a member that
 * refused every office offered twice in a row is not a receiver for the delay (doubled on each
 * refusal in a row, up to {@link #RESYNC}), or until its standing changes (it was out of every line
 * and is back, or it joined anew); and a member of higher priority than this one is not a receiver
 * until its key is older than the hold-down, which is {@link GroupOptions#minTenure()} (the same
 * wait a term has before it is handed up): a member that rejoins every few seconds (crash-looping)
 * does not pull every office over on each rejoin.
 *
 * <p>Longer than most files here, on purpose: it is the group's one thread, and every field below
 * is that thread's state (the view's age, the pending move, the last publish, the outage); what
 * could go has gone to {@link GroupMembership}, {@link GroupTargets}, {@link GroupMove} and {@link
 * ShareRule}.
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

  /**
   * Counts that none changed for this long (and no hand-over under way here) show every hand-over
   * made: longer than a count takes to be published after a win (a burst, then one put).
   */
  private static final long COUNTS_QUIET = TimeUnit.MILLISECONDS.toNanos(500);

  /** The pause before reading again while etcd does not answer. */
  private static final long RETRY = TimeUnit.SECONDS.toNanos(1);

  /** How many times leaving deletes the member key before it leaves that to the lease. */
  private static final int LEAVE_TRIES = 3;

  private static final Object WAKE = new Object();

  private final EtcdSession session;
  private final GroupOptions options;
  private final String self;
  private final Ticker ticker;
  private final GroupMembership membership;
  private final GroupTargets targets;
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
  private List<Pending> pending = List.of();
  private boolean outage;
  private boolean taken;
  private long movesPausedUntil;
  private long renewalFailures;
  private long lookAgain = TICK;

  // The move under way, if any: set and cleared by the group's thread (close reads it).
  private volatile @Nullable GroupMove move;
  private Map<String, Integer> leadsBeforeMove = Map.of();
  private List<String> handingTo = List.of();

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

  /**
   * A move made, until the target's published count shows it ({@code leadsAfter} or more) or the
   * bound passed.
   */
  private record Pending(String target, int leadsAfter, long until) {}

  EtcdOfficeGroup(EtcdSession session, GroupOptions options) {
    this.session = session;
    this.options = options;
    this.self = options.memberId();
    this.ticker = session.ticker();
    this.membership = new GroupMembership(session, options.name(), self, options.priority());
    this.targets =
        new GroupTargets(
            membership,
            options.minTenure().toNanos(),
            Math.max(RETRY, options.delay().toNanos()),
            RESYNC.toNanos());
    this.settleBound = session.timeout().toNanos();
    this.membershipChangedAt = ticker.nanoTime();
    this.movesPausedUntil = membershipChangedAt;
    this.renewalFailures = session.renewalFailures();
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
      // Leaving is bounded: LEAVE_TRIES deletes, each within the session's timeout.
      thread.join(session.timeout().toMillis() * (LEAVE_TRIES + 1));
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(session.timeout().toMillis());
      }
      // A move under way ends on its own: it is bounded by the election's own timeouts.
      GroupMove last = move;
      if (last != null) {
        last.stop();
      }
      if (last != null && !last.await(session.timeout().multipliedBy(2))) {
        last.interrupt();
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
        } catch (GroupMembership.Taken e) {
          if (!taken) {
            log.error("group {}: {}", options.name(), e.getMessage());
            taken = true;
          }
          wait = Math.max(RETRY, options.delay().toNanos());
        } catch (RuntimeException e) {
          log.warn("group {}: unexpected failure, trying again", options.name(), e);
          stale = true;
          wait = RETRY;
        } catch (Error e) {
          // Not allowed to end the thread silently (the member key would go, and with it the
          // share): said loudly, and tried again after a pause.
          log.error("group {}: the group's thread failed; trying again", options.name(), e);
          stale = true;
          wait = RETRY;
        }
        lookAgain = TICK;
        Object first = inbox.poll(wait, TimeUnit.NANOSECONDS);
        try {
          take(first);
        } catch (RuntimeException | Error e) {
          log.error("group {}: the group's thread failed; trying again", options.name(), e);
          stale = true;
        }
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
      if (item instanceof Move made) {
        tell(made);
      } else if (item instanceof GroupMove.Outcome outcome) {
        moved(outcome);
      } else if (item instanceof GroupMembership.WatchItem watched
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
    GroupMove under = move;
    Set<String> handing = under == null ? Set.of() : under.handing();
    // Offices being handed over count as this member's until the target is seen to lead them:
    // they are nobody else's yet, and the counts add up while their lose hooks run.
    int leads = led.size();
    for (String office : handing) {
      if (led.stream().noneMatch(o -> o.name().equals(office))) {
        leads++;
      }
    }
    boolean receiving = !handing.isEmpty() || receiving();
    List<Member> seen = membership.members();
    boolean settling = settling(seen, now);
    if (under == null && !settling) {
      handingTo = List.of(); // the last hand-over shows in the target's count
    }
    publish(leads, receiving, now, false);
    taken = false;
    show(seen, leads, receiving);
    String signature = signature(seen);
    if (!signature.equals(membershipSignature)) {
      membershipSignature = signature;
      membershipChangedAt = now;
    }
    List<Member> view = targets.view(seen, options.priority(), now);
    lookAgain = Math.max(1, Math.min(lookAgain, targets.nextChange()));
    long failures = session.renewalFailures();
    if (failures != renewalFailures) {
      // A renewal failed: etcd is slow or away. Moves are optional and the lease is not: none for
      // a while, so that the renewals have etcd to themselves.
      renewalFailures = failures;
      movesPausedUntil =
          Math.max(movesPausedUntil, now + Math.max(RETRY, options.delay().toNanos()));
    }
    if (under != null
        || now - membershipChangedAt < options.delay().toNanos()
        || now - movesPausedUntil < 0
        || settling) {
      return;
    }
    Set<String> moving = membership.moving();
    boolean quiet =
        moving.isEmpty()
            && now - membership.countsChangedAt() >= COUNTS_QUIET
            && membership.putLeads() == leads;
    Optional<ShareRule.Plan> plan =
        ShareRule.decide(
            view, self, led, options.minTenure().toNanos(), offices.size(), quiet, moving);
    if (plan.isEmpty()) {
      return;
    }
    for (String target : plan.get().targets()) {
      long sinceChange = now - membership.changedAt(target);
      if (sinceChange >= 0 && sinceChange < QUIET) {
        // Its count may not show what others handed it yet: looked at again once still for QUIET.
        lookAgain = Math.max(1, QUIET - sinceChange);
        return;
      }
    }
    log.debug(
        "group {}: {} moves on {} (quiet {}, moving {}): {}",
        options.name(),
        self,
        view,
        quiet,
        moving,
        plan.get());
    leadsBeforeMove = new HashMap<>();
    for (Member member : seen) {
      leadsBeforeMove.put(member.id(), member.leads());
    }
    // Said before the hand-over: whoever sees its effects in the view (watched in revision order)
    // sees this first, and does not take the targets' counts as settled until it is cleared.
    handingTo = plan.get().targets();
    publish(leads, receiving, now, true);
    long failuresBefore = session.renewalFailures();
    move =
        new GroupMove(
            options.name(),
            plan.get(),
            name -> {
              Office office = offices.get(name);
              return office == null ? null : office.election;
            },
            session.timeout(),
            session.renewalBudget().attemptTimeout(),
            () -> session.renewalFailures() != failuresBefore,
            inbox::add,
            inbox::add);
  }

  /** Whether this member stands in the line of some office of the group. */
  private boolean receiving() {
    for (Office office : offices.values()) {
      State state = office.election.state();
      if (state == State.CAMPAIGNING || state == State.FOLLOWING || state == State.LEADING) {
        return true;
      }
    }
    return false;
  }

  /** What came of the move under way: made (each was told as it was), refused, or nothing. */
  private void moved(GroupMove.Outcome outcome) {
    move = null;
    long now = ticker.nanoTime();
    if (outcome instanceof GroupMove.Moved moved) {
      Map<String, Integer> to = new LinkedHashMap<>();
      for (Move made : moved.moves()) {
        to.merge(made.to(), 1, Integer::sum);
      }
      List<Pending> settling = new ArrayList<>();
      to.forEach(
          (target, count) -> {
            targets.took(target);
            settling.add(
                new Pending(
                    target, leadsBeforeMove.getOrDefault(target, 0) + count, now + settleBound));
          });
      pending = settling;
      handingTo = List.copyOf(to.keySet());
      Move first = moved.moves().get(0);
      log.info(
          "group {}: {} handed {} to {} ({})",
          options.name(),
          self,
          moved.moves().size() == 1
              ? "office " + first.office() + " (token " + first.token() + ")"
              : moved.moves().size() + " offices",
          to,
          first.reason());
    } else if (outcome instanceof GroupMove.Refused refused) {
      movesPausedUntil = now + targets.refused(refused.targets(), now);
      log.debug("group {}: {} refused; tried again later", options.name(), refused.targets());
    } else if (outcome instanceof GroupMove.NotMoved notMoved) {
      if (notMoved.failed()) {
        log.warn("group {}: no move: {}", options.name(), notMoved.why());
        movesPausedUntil = now + Math.max(RETRY, options.delay().toNanos());
      } else {
        log.info("group {}: no move: {}", options.name(), notMoved.why());
      }
    }
    wake();
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

  /**
   * Writes the member key on the current lease with the count, whether it receives, and whom it is
   * handing to, when any of them changed; a new count only after a burst, unless {@code atOnce}.
   */
  private void publish(int leads, boolean receiving, long now, boolean atOnce)
      throws InterruptedException {
    LeaseKeeper.Lease lease = session.keeper().current();
    if (lease == null || !lease.isAlive(now)) {
      membership.unpublished();
      lease = EtcdCalls.await(session.lease(), session.timeout(), "getting a lease for the group");
    }
    boolean newLease = lease.id != membership.putLease();
    if (!atOnce && !newLease && leads != membership.putLeads() && now - lastPublish < COALESCE) {
      lookAgain = Math.max(1, COALESCE - (now - lastPublish)); // written after the burst
      return;
    }
    if (membership.publish(lease, leads, receiving, handingTo)) {
      lastPublish = now;
    }
  }

  private void show(List<Member> seen, int leads, boolean receiving) {
    List<Member> members = new ArrayList<>(seen.size());
    for (Member member : seen) {
      members.add(
          member.self()
              ? new Member(member.id(), member.priority(), leads, true, receiving)
              : member);
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

  /** Whether the last move is not visible yet in its targets' published counts (and may be). */
  private boolean settling(List<Member> seen, long now) {
    List<Pending> left = new ArrayList<>();
    for (Pending last : pending) {
      Optional<Member> target = seen.stream().filter(m -> m.id().equals(last.target())).findFirst();
      if (target.isPresent()
          && target.get().leads() < last.leadsAfter()
          && now - last.until() < 0) {
        left.add(last);
      }
    }
    pending = left;
    return !left.isEmpty();
  }

  private void tell(Move move) {
    for (Consumer<Move> listener : listeners) {
      try {
        listener.accept(move);
      } catch (RuntimeException | Error e) {
        log.warn("group {}: a move listener failed", options.name(), e);
      }
    }
  }

  /** Deletes the member key, trying again {@link #LEAVE_TRIES} times in all. */
  private void leave() {
    for (int attempt = 1; ; attempt++) {
      try {
        membership.leave();
        return;
      } catch (EtcdUnavailableException e) {
        if (attempt >= LEAVE_TRIES) {
          log.warn(
              "group {}: could not delete member key {} ({} tries); it goes with the lease: {}",
              options.name(),
              membership.selfKey(),
              attempt,
              e.getMessage());
          return;
        }
        log.debug("group {}: leaving failed, trying again: {}", options.name(), e.getMessage());
      } catch (InterruptedException e) {
        membership.closeWatch();
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.warn("group {}: leaving failed", options.name(), e);
        return;
      }
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
