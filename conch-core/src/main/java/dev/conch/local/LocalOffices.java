package dev.conch.local;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.FencedElection;
import dev.conch.FencedLock;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LossReason;
import dev.conch.Ticker;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

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
      return first(office).map(c -> c.holder);
    }
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
   * current leader's grant ends as if its key were deleted.
   *
   * @return whether such a candidate was waiting
   */
  public boolean grant(String office, String candidateId) {
    synchronized (monitor) {
      List<Candidacy> queue = queue(office);
      Candidacy chosen = null;
      for (Candidacy c : queue) {
        if (c.holder.id().equals(candidateId) && c.ended == null) {
          chosen = c;
        }
      }
      if (chosen == null) {
        return false;
      }
      if (queue.get(0) != chosen) {
        end(office, LossReason.KEY_DELETED);
        queue.remove(chosen);
        chosen.holder = chosen.holder.at(++revision, chosen.holder.lease());
        queue.add(0, chosen);
        monitor.notifyAll();
      }
      return true;
    }
  }

  /** The value a guarded write stored at {@code key}, if any. */
  public Optional<String> value(String key) {
    synchronized (monitor) {
      return Optional.ofNullable(values.get(key));
    }
  }

  private void end(String office, LossReason reason) {
    synchronized (monitor) {
      first(office)
          .ifPresent(
              c -> {
                queue(office).remove(c);
                c.end(reason);
              });
      monitor.notifyAll();
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
    private volatile LossReason ended;

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
    public Grant acquire(Holder self, Consumer<Optional<Holder>> ahead, Runnable changed)
        throws InterruptedException {
      Candidacy mine;
      synchronized (monitor) {
        mine = new Candidacy(self.at(++revision, ++leases), changed);
        queue(office).add(mine);
      }
      Holder seen = null;
      try {
        while (true) {
          Holder leader;
          synchronized (monitor) {
            Candidacy head = queue(office).get(0);
            if (head == mine) {
              mine.holder = mine.holder.since(clock.instant());
              return mine;
            }
            leader = head.holder;
            if (leader == seen) {
              monitor.wait();
              continue;
            }
          }
          seen = leader;
          ahead.accept(Optional.of(leader));
        }
      } catch (InterruptedException e) {
        synchronized (monitor) {
          queue(office).remove(mine);
          monitor.notifyAll();
        }
        throw e;
      }
    }

    @Override
    public void release(Grant grant) {
      synchronized (monitor) {
        queue(office).remove((Candidacy) grant);
        monitor.notifyAll();
      }
    }

    @Override
    public Optional<Holder> leader() {
      return LocalOffices.this.leader(office);
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
