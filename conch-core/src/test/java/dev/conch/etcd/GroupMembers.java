package dev.conch.etcd;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Gate;
import dev.conch.GroupOptions;
import dev.conch.OfficeGroup;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;

/**
 * Members of a group for tests: each its own session (lease) on a shared client, with one election
 * per office of the group, and the moves it made.
 */
final class GroupMembers {

  /** Short, so that a test does not wait; the defaults are for rolling restarts. */
  static final Duration DELAY = Duration.ofMillis(300);

  private final Etcds etcds;
  private final Client client;
  private final String group;
  private final List<String> offices;

  GroupMembers(Etcds etcds, Client client, String group, int offices) {
    this.etcds = etcds;
    this.client = client;
    this.group = group;
    this.offices = new ArrayList<>();
    for (int i = 0; i < offices; i++) {
      this.offices.add(group + "-" + i);
    }
  }

  List<String> offices() {
    return offices;
  }

  /** A member {@code id} of priority 0, every office movable. */
  Member start(String id) {
    return start(id, 0, Duration.ZERO, () -> true);
  }

  Member start(String id, int priority, Duration minTenure, BooleanSupplier canMove) {
    return start(id, priority, minTenure, canMove, Gate.OPEN, election -> election);
  }

  /**
   * A member whose elections ask {@code gate} before each campaign (and, when it is not open, ask
   * again soon after a denial), each made by {@code setUp} from the real one before it starts: add
   * hooks there, or wrap it.
   */
  Member start(
      String id,
      int priority,
      Duration minTenure,
      BooleanSupplier canMove,
      Gate gate,
      UnaryOperator<Election> setUp) {
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    OfficeGroup officeGroup =
        session.group(
            GroupOptions.builder(group)
                .candidateId(id)
                .priority(priority)
                .delay(DELAY)
                .minTenure(minTenure)
                .build());
    Member member = new Member(id, session, officeGroup);
    officeGroup.addListener(member.moves::add);
    for (String office : offices) {
      ElectionOptions.Builder options =
          ElectionOptions.builder(office).candidateId(id).priority(priority);
      if (gate != Gate.OPEN) {
        options.gate(gate).retryInitial(Duration.ofMillis(100)).retryMax(Duration.ofMillis(300));
      }
      Election election = setUp.apply(session.election(options.build()));
      officeGroup.add(election, canMove);
      election.start();
      member.elections.add(election);
    }
    return member;
  }

  /**
   * The moves {@code members} reported so far, once none was reported for a second, waiting at most
   * {@code wait}: a move is reported when its target is seen leading, which can come after the
   * shares already show it.
   */
  static int settledMoves(Duration wait, Member... members) {
    int[] last = {-1};
    long[] since = {0};
    Awaitility.await()
        .atMost(wait)
        .until(
            () -> {
              int now = 0;
              for (Member member : members) {
                now += member.moves.size();
              }
              if (now != last[0]) {
                last[0] = now;
                since[0] = System.nanoTime();
                return false;
              }
              return System.nanoTime() - since[0] >= TimeUnit.SECONDS.toNanos(1);
            });
    return last[0];
  }

  /** One member: its session, group and elections. */
  static final class Member {
    final String id;
    final EtcdSession session;
    final OfficeGroup group;
    final List<Election> elections = new ArrayList<>();
    final Queue<OfficeGroup.Move> moves = new ConcurrentLinkedQueue<>();

    Member(String id, EtcdSession session, OfficeGroup group) {
      this.id = id;
      this.session = session;
      this.group = group;
    }

    /** How many of the group's offices it leads now. */
    int leads() {
      return (int) elections.stream().filter(Election::isLeader).count();
    }

    /** What the others see of member {@code id} (empty while it is not in their view). */
    Optional<OfficeGroup.Member> sees(String id) {
      return group.members().stream().filter(m -> m.id().equals(id)).findFirst();
    }

    /**
     * Leaves every line as a health pause does: resigns (or withdraws) and joins again, where a
     * denying gate keeps it out.
     */
    void leaveEveryLine() {
      for (Election election : elections) {
        election.resign();
        election.start();
      }
    }

    /** Whether every election campaigns or leads (its key is in every office's line). */
    boolean queued() {
      return elections.stream()
          .allMatch(
              e -> e.state() == dev.conch.State.LEADING || e.state() == dev.conch.State.FOLLOWING);
    }
  }
}
