package dev.conch.etcd;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.GroupOptions;
import dev.conch.OfficeGroup;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

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
      Election election =
          session.election(
              ElectionOptions.builder(office).candidateId(id).priority(priority).build());
      officeGroup.add(election, canMove);
      election.start();
      member.elections.add(election);
    }
    return member;
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

    /** Whether every election campaigns or leads (its key is in every office's line). */
    boolean queued() {
      return elections.stream()
          .allMatch(
              e -> e.state() == dev.conch.State.LEADING || e.state() == dev.conch.State.FOLLOWING);
    }
  }
}
