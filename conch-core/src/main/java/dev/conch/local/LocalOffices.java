package dev.conch.local;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.FencedElection;
import dev.conch.FencedLock;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LossReason;
import dev.conch.TermRecord;
import dev.conch.Ticker;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory store of offices, for users' unit tests, the state-machine tests of conch, and the
 * explicit standalone mode: candidates in one JVM compete as they would in etcd (first come, first
 * served, tokens strictly increasing), and a test can grant, revoke and expire leadership by hand.
 * It is not etcd: nothing here proves anything about etcd's behaviour.
 */
public final class LocalOffices {

  private final Object monitor = new Object();
  private final Map<String, List<Candidacy>> offices = new HashMap<>();
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> heldVacant = new HashSet<>();
  private final Map<String, List<TermRecord>> history = new HashMap<>();
  private final Clock clock;
  private final Ticker ticker;
  private long revision;
  private long leases;

  /** A store with the system clocks. */
  public LocalOffices() {
    this(Clock.systemUTC(), Ticker.SYSTEM);
  }

  /** A store with the given clocks. */
  public LocalOffices(Clock clock, Ticker ticker) {
    this.clock = clock;
    this.ticker = ticker;
  }

  /** A new candidate for {@code options.office()}; call {@link Election#start()} to join. */
  public Election election(ElectionOptions options) {
    return new FencedElection(lock(options.office()), options, ticker, clock);
  }

  /** The fenced lock of one office, for code that drives its own loop. */
  public FencedLock lock(String office) {
    return new LocalLock(office);
  }

  /** Who leads {@code office} now; empty when vacant. */
  public Optional<Holder> leader(String office) {
    synchronized (monitor) {
      return first(office).filter(c -> !isHeld(office, c)).map(c -> c.holder);
    }
  }

  /**
   * Keeps {@code office} vacant once its current grant ends (by {@link #revoke}, {@link #expire},
   * {@link #failRenewal} or a release): candidates keep campaigning but none wins until {@link
   * #grant} picks one or {@link #reopen} lets the first win. The current leader, if any, keeps its
   * grant until then. For a test that keeps an instance out without another leader.
   */
  public void holdVacant(String office) {
    synchronized (monitor) {
      heldVacant.add(office);
    }
  }

  /** Undoes {@link #holdVacant}: the first waiting candidate of {@code office} wins. */
  public void reopen(String office) {
    synchronized (monitor) {
      heldVacant.remove(office);
    }
    settle(office);
  }

  /** Whether {@code head}, the first candidacy, waits in an office held vacant. */
  private boolean isHeld(String office, Candidacy head) {
    return head.waiting != null && heldVacant.contains(office);
  }

  /** Ends the current leader's grant as if its key were deleted; the next candidate leads. */
  public void revoke(String office) {
    end(office, LossReason.KEY_DELETED);
  }

  /** Ends the current leader's grant as if its lease expired; the next candidate leads. */
  public void expire(String office) {
    end(office, LossReason.LEASE_EXPIRED);
  }

  /**
   * Ends the current leader's grant as if renewing its lease had failed: it stops leading (reason
   * {@code RENEWAL_FAILED}) and campaigns again; the next candidate leads.
   */
  public void failRenewal(String office) {
    end(office, LossReason.RENEWAL_FAILED);
  }

  /**
   * Makes the candidate with {@code candidateId} lead {@code office} at once, with a new token: the
   * current leader's grant ends as if its key were deleted. An office {@linkplain #holdVacant held
   * vacant} opens again.
   *
   * @return whether such a candidate was waiting
   */
  public boolean grant(String office, String candidateId) {
    try {
      return moveFirst(office, candidateId);
    } finally {
      settle(office);
    }
  }

  private boolean moveFirst(String office, String candidateId) {
    synchronized (monitor) {
      List<Candidacy> queue = queue(office);
      Candidacy chosen = null;
      for (Candidacy c : queue) {
        if (candidateId.equals(c.holder.id()) && c.ended == null) {
          chosen = c;
        }
      }
      if (chosen == null) {
        return false;
      }
      heldVacant.remove(office);
      if (queue.get(0) != chosen) {
        if (queue.get(0).waiting == null) {
          endFirst(office, LossReason.KEY_DELETED);
        }
        queue.remove(chosen);
        chosen.holder = chosen.holder.at(++revision, chosen.holder.lease());
        queue.add(0, chosen);
      }
      return true;
    }
  }

  /**
   * The last {@code limit} terms of {@code office}, oldest first, as the etcd store's history keeps
   * them (the last {@value #HISTORY_TERMS}): who led, from when, and how each term ended.
   */
  public List<TermRecord> history(String office, int limit) {
    synchronized (monitor) {
      List<TermRecord> terms = history.getOrDefault(office, List.of());
      return TermRecord.withVacancies(
          terms.subList(Math.max(0, terms.size() - limit), terms.size()));
    }
  }

  /** How many terms of each office the history keeps. */
  public static final int HISTORY_TERMS = 100;

  /** Records the beginning of {@code c}'s term; the caller holds the monitor. */
  private void begun(String office, Candidacy c) {
    List<TermRecord> terms = history.computeIfAbsent(office, o -> new ArrayList<>());
    terms.add(TermRecord.begun(c.holder));
    if (terms.size() > HISTORY_TERMS) {
      terms.remove(0);
    }
  }

  /**
   * Records the end of {@code c}'s term, unless one is recorded already; the caller holds the
   * monitor.
   */
  private void ended(String office, Candidacy c, LossReason reason, @Nullable String detail) {
    List<TermRecord> terms = history.getOrDefault(office, List.of());
    for (int i = terms.size() - 1; i >= 0; i--) {
      TermRecord term = terms.get(i);
      if (term.token() == c.holder.rev()) {
        if (term.isOpen()) {
          terms.set(i, term.end(clock.instant(), reason, detail, c.holder.id()));
        }
        return;
      }
    }
  }

  /** The value a guarded write stored at {@code key}, if any. */
  public Optional<String> value(String key) {
    synchronized (monitor) {
      return Optional.ofNullable(values.get(key));
    }
  }

  private static String how(LossReason reason) {
    return switch (reason) {
      case LEASE_EXPIRED -> "expire()";
      case RENEWAL_FAILED -> "failRenewal()";
      default -> "revoke() or grant()";
    };
  }

  private void end(String office, LossReason reason) {
    synchronized (monitor) {
      endFirst(office, reason);
    }
    settle(office);
  }

  /**
   * Ends the first candidacy of {@code office}; the caller holds the monitor and settles the office
   * once it is done with it, so that no candidate wins a queue that is still being changed.
   */
  private void endFirst(String office, LossReason reason) {
    first(office)
        .ifPresent(
            c -> {
              queue(office).remove(c);
              if (c.waiting == null) {
                ended(office, c, reason, "ended by the in-memory store's " + how(reason));
              }
              c.end(reason);
            });
  }

  /**
   * Tells the waiting candidates of {@code office} what changed: the first one wins, the others
   * learn who leads. Called after every change to the office's queue, outside the monitor.
   */
  private void settle(String office) {
    List<Runnable> news = new ArrayList<>();
    synchronized (monitor) {
      List<Candidacy> queue = queue(office);
      if (heldVacant.contains(office) && !queue.isEmpty() && queue.get(0).waiting != null) {
        return; // held vacant: nobody wins, nobody learns of a leader
      }
      for (Candidacy c : queue) {
        Waiting waiting = c.waiting;
        if (waiting == null) {
          continue;
        }
        if (c == queue.get(0)) {
          c.waiting = null;
          c.holder = c.holder.since(clock.instant());
          begun(office, c);
          news.add(() -> waiting.result.complete(c));
        } else {
          Holder leader = queue.get(0).holder;
          if (leader != waiting.seen) {
            waiting.seen = leader;
            news.add(() -> waiting.ahead.accept(Optional.of(leader)));
          }
        }
      }
    }
    news.forEach(Runnable::run);
  }

  private void withdraw(String office, Candidacy candidacy) {
    synchronized (monitor) {
      queue(office).remove(candidacy);
    }
    settle(office);
  }

  /** A candidacy that has not won yet: how to tell it of a win, and who it last heard leads. */
  private static final class Waiting {
    final CompletableFuture<FencedLock.Grant> result = new CompletableFuture<>();
    final Consumer<Optional<Holder>> ahead;
    @Nullable Holder seen;

    Waiting(Consumer<Optional<Holder>> ahead) {
      this.ahead = ahead;
    }
  }

  private List<Candidacy> queue(String office) {
    return offices.computeIfAbsent(office, k -> new ArrayList<>());
  }

  private Optional<Candidacy> first(String office) {
    List<Candidacy> queue = queue(office);
    return queue.isEmpty() ? Optional.empty() : Optional.of(queue.get(0));
  }

  private static final class Candidacy implements FencedLock.Grant {
    private volatile Holder holder;
    private final Runnable changed;
    // Guarded by the store's monitor.
    private @Nullable Waiting waiting;
    private volatile @Nullable LossReason ended;
    // How its term ended, as the loop said (Grant#ending), for the history.
    private volatile @Nullable LossReason endReason;
    private volatile @Nullable String endDetail;

    Candidacy(Holder holder, Runnable changed) {
      this.holder = holder;
      this.changed = changed;
    }

    void end(LossReason reason) {
      ended = reason;
      changed.run();
    }

    @Override
    public Leadership leadership() {
      Holder h = holder;
      return new Leadership(h.office(), h.rev(), h.lease(), h);
    }

    @Override
    public long validUntil() {
      return Long.MAX_VALUE;
    }

    @Override
    public Optional<LossReason> ended() {
      return Optional.ofNullable(ended);
    }

    @Override
    public void ending(LossReason reason, @Nullable String detail) {
      endReason = reason;
      endDetail = detail;
    }
  }

  private final class LocalLock implements FencedLock {
    private final String office;

    LocalLock(String office) {
      this.office = office;
    }

    @Override
    public String office() {
      return office;
    }

    @Override
    public CompletableFuture<Grant> campaign(
        Holder self, Consumer<Optional<Holder>> ahead, Runnable changed) {
      Candidacy mine;
      Waiting waiting = new Waiting(ahead);
      synchronized (monitor) {
        mine = new Candidacy(self.at(++revision, ++leases), changed);
        mine.waiting = waiting;
        queue(office).add(mine);
      }
      // A campaign given up (cancelled) leaves the queue; one that won releases what it won.
      waiting.result.whenComplete(
          (won, error) -> {
            if (waiting.result.isCancelled()) {
              withdraw(office, mine);
            }
          });
      settle(office);
      return waiting.result;
    }

    @Override
    public CompletableFuture<Void> release(Grant grant) {
      recordEnd((Candidacy) grant);
      withdraw(office, (Candidacy) grant);
      return CompletableFuture.completedFuture(null);
    }

    /** The end of a released or handed-over term, as its loop told it. */
    private void recordEnd(Candidacy c) {
      LossReason reason = c.endReason;
      if (reason != null) {
        synchronized (monitor) {
          ended(office, c, reason, c.endDetail);
        }
      }
    }

    @Override
    public CompletableFuture<List<TermRecord>> history(int limit) {
      return CompletableFuture.completedFuture(LocalOffices.this.history(office, limit));
    }

    @Override
    public Optional<Holder> leader() {
      return LocalOffices.this.leader(office);
    }

    @Override
    public CompletableFuture<List<Holder>> candidates() {
      synchronized (monitor) {
        return CompletableFuture.completedFuture(
            queue(office).stream().map(c -> c.holder).toList());
      }
    }

    /**
     * As etcd's one transaction: if the line is as given, the grant leaves the queue and the
     * candidacies between go to the back with new revisions (as a conch campaign that finds its key
     * deleted queues again), still waiting; the target is then first and wins.
     */
    @Override
    public CompletableFuture<Boolean> handOver(Grant grant, Holder target, List<Holder> between) {
      Candidacy mine = (Candidacy) grant;
      synchronized (monitor) {
        List<Candidacy> queue = queue(office);
        List<Candidacy> passed = new ArrayList<>();
        for (Holder h : between) {
          Candidacy c = find(queue, h);
          if (c == null) {
            return CompletableFuture.completedFuture(false);
          }
          passed.add(c);
        }
        if (queue.isEmpty()
            || queue.get(0) != mine
            || mine.ended != null
            || find(queue, target) == null) {
          return CompletableFuture.completedFuture(false);
        }
        queue.remove(mine);
        LossReason reason = mine.endReason;
        if (reason != null) {
          ended(office, mine, reason, mine.endDetail);
        }
        for (Candidacy c : passed) {
          queue.remove(c);
          c.holder = c.holder.at(++revision, c.holder.lease());
          queue.add(c);
        }
      }
      settle(office);
      return CompletableFuture.completedFuture(true);
    }

    /** The waiting candidacy with {@code holder}'s revision, as a compare would find it. */
    private @Nullable Candidacy find(List<Candidacy> queue, Holder holder) {
      for (Candidacy c : queue) {
        if (c.holder.rev() == holder.rev() && c.waiting != null) {
          return c;
        }
      }
      return null;
    }

    @Override
    public boolean guardedPut(Grant grant, String key, String value) {
      synchronized (monitor) {
        Optional<Candidacy> head = first(office);
        if (head.isEmpty() || head.get() != grant || ((Candidacy) grant).ended != null) {
          return false;
        }
        values.put(key, value);
        return true;
      }
    }
  }
}
