package dev.conch.etcd;

import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The leases of a session, each kept by its own {@link LeaseKeeper}, each carrying the keys of at
 * most {@link SessionOptions#maxKeysPerLease()} offices. With authentication on, every put with a
 * lease gets slower as the lease has more keys (etcd#15993), and revoking a large lease blocks etcd
 * (kubernetes#96836); the Kubernetes API server caps its own leases at 1 000 objects. So a renewal,
 * a loss or a revoke touches a bounded set of offices, and losing one lease ends only its offices.
 *
 * <p>An office takes a slot on the first lease with room when its election is made, and keeps it
 * until the election is closed; a slot of a closed election is taken back when every lease is full,
 * before another lease is begun. The first lease also carries the session's group member keys.
 * Their rounds share a few threads with every other lease of the process. Every lease has the same
 * renewal budget: the one the most demanding election of the session needs; and the rounds of all
 * share one budget of reads for the keys that only wake someone ({@link #belt()}).
 */
final class Leases {

  private final Client client;
  private final SessionOptions options;
  private final Runnable onTick;
  private final Consumer<LeaseKeeper.Lease> onRetired;
  private final List<LeaseKeeper> keepers = new CopyOnWriteArrayList<>();
  private final Object monitor = new Object();

  // Guarded by monitor.
  private final Map<String, LeaseKeeper> slotOf = new HashMap<>();
  private final Map<LeaseKeeper, Integer> used = new HashMap<>();
  private Duration stopTimeout = Duration.ZERO;
  private Duration safetyMargin = Duration.ZERO;
  private boolean stopped;

  Leases(
      Client client,
      SessionOptions options,
      Runnable onTick,
      Consumer<LeaseKeeper.Lease> onRetired) {
    this.client = client;
    this.options = options;
    this.onTick = onTick;
    this.onRetired = onRetired;
    keepers.add(newKeeper());
  }

  /** The first lease's keeper: the group member keys', and the one a session reports on. */
  LeaseKeeper first() {
    return keepers.get(0);
  }

  /** Every keeper so far, the first first. */
  List<LeaseKeeper> all() {
    return keepers;
  }

  /**
   * Makes every lease's budget fit an election with these values ({@link LeaseKeeper#require}), and
   * every lease begun later.
   *
   * @throws dev.conch.InvalidArgumentException when they cannot fit at all; nothing changes then
   */
  RenewalBudget require(Duration stop, Duration margin) {
    RenewalBudget budget = first().require(stop, margin);
    synchronized (monitor) {
      if (stop.plus(margin).compareTo(stopTimeout.plus(safetyMargin)) > 0) {
        stopTimeout = stop;
        safetyMargin = margin;
      }
    }
    for (LeaseKeeper keeper : keepers.subList(1, keepers.size())) {
      keeper.require(stop, margin);
    }
    return budget;
  }

  /**
   * A slot for {@code office}'s key on the first lease with room; {@code open} says whether an
   * office's election is still open, for taking back the slots of closed ones.
   */
  LeaseKeeper take(String office, Predicate<String> open) {
    int most = options.maxKeysPerLease();
    LeaseKeeper chosen;
    Duration stop;
    Duration margin;
    synchronized (monitor) {
      if (stopped) {
        return first(); // its lease() refuses: the session is closed
      }
      free(office);
      chosen = withRoom(most);
      if (chosen == null) {
        for (Iterator<Map.Entry<String, LeaseKeeper>> it = slotOf.entrySet().iterator();
            it.hasNext(); ) {
          Map.Entry<String, LeaseKeeper> slot = it.next();
          if (!open.test(slot.getKey())) {
            it.remove();
            used.merge(slot.getValue(), -1, Integer::sum);
          }
        }
        chosen = withRoom(most);
      }
      stop = stopTimeout;
      margin = safetyMargin;
      if (chosen == null) {
        chosen = newKeeper();
        chosen.require(stop, margin);
        keepers.add(chosen);
      }
      slotOf.put(office, chosen);
      used.merge(chosen, 1, Integer::sum);
    }
    return chosen;
  }

  /** Gives {@code office}'s slot back (its election was refused). */
  void release(String office) {
    synchronized (monitor) {
      free(office);
    }
  }

  /** How many renewal rounds failed, over every lease. */
  long renewalFailures() {
    return keepers.stream().mapToLong(LeaseKeeper::renewalFailures).sum();
  }

  /** Stops every keeper; returns the leases they held (not revoked here). */
  List<LeaseKeeper.Lease> stop() {
    synchronized (monitor) {
      stopped = true;
    }
    List<LeaseKeeper.Lease> held = new ArrayList<>();
    for (LeaseKeeper keeper : keepers) {
      LeaseKeeper.Lease last = keeper.stop();
      if (last != null) {
        held.add(last);
      }
    }
    return held;
  }

  // Guarded by monitor.
  private void free(String office) {
    LeaseKeeper had = slotOf.remove(office);
    if (had != null) {
      used.merge(had, -1, Integer::sum);
    }
  }

  // Guarded by monitor.
  private @Nullable LeaseKeeper withRoom(int most) {
    for (LeaseKeeper keeper : keepers) {
      if (used.getOrDefault(keeper, 0) < most) {
        return keeper;
      }
    }
    return null;
  }

  /**
   * The transactions one lease's round may spend on keys that only wake someone: the session's
   * {@link LeaseKeeper#BELT_TRANSACTIONS} shared among its leases, at least one each, so that ten
   * leases of followers do not read ten times what one lease of them would.
   */
  private int belt() {
    return Math.max(1, LeaseKeeper.BELT_TRANSACTIONS / keepers.size());
  }

  private LeaseKeeper newKeeper() {
    return new LeaseKeeper(client, options, this::belt, onTick, onRetired);
  }
}
