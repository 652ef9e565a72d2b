package dev.conch.chaos;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Gate;
import dev.conch.GroupOptions;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.OfficeGroup;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.test.EtcdCluster;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.Client;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * One member of the balance soak: its own proxies (one per etcd member, kept across restarts so
 * that its link can be cut), and while open its own jetcd client, session, group and elections,
 * whose hooks write to the shared {@link TermLog}.
 */
final class BalanceMember implements AutoCloseable {

  final String id;
  private final List<TcpProxy> proxies = new ArrayList<>();
  private final TermLog log;
  private final GroupOptions groupOptions;
  private final SessionOptions sessionOptions;
  private final int offices;
  private final AtomicInteger moves;
  private @Nullable Client client;
  private @Nullable EtcdSession session;
  private final List<Election> elections = new ArrayList<>();

  /** What its elections' gate says: a health indicator of its own, DOWN while false. */
  private volatile boolean healthy = true;

  BalanceMember(
      String id,
      EtcdCluster cluster,
      TermLog log,
      GroupOptions groupOptions,
      SessionOptions sessionOptions,
      int offices,
      AtomicInteger moves) {
    this.id = id;
    this.log = log;
    this.groupOptions = groupOptions;
    this.sessionOptions = sessionOptions;
    this.offices = offices;
    this.moves = moves;
    cluster.members().forEach(m -> proxies.add(TcpProxy.start("127.0.0.1", m.clientPort())));
  }

  /** Opens a client, session and group and starts campaigning for every office. */
  synchronized void open() {
    Client newClient =
        EtcdClients.builder(
                EtcdClients.parseEndpoints(
                    String.join(",", proxies.stream().map(TcpProxy::endpoint).toList())),
                sessionOptions.timeout())
            .build();
    EtcdSession newSession = EtcdSession.open(newClient, sessionOptions);
    OfficeGroup group = newSession.group(groupOptions);
    group.addListener(move -> moves.incrementAndGet());
    for (int i = 0; i < offices; i++) {
      Election election =
          newSession.election(
              ElectionOptions.builder(groupOptions.name() + "-" + i)
                  .candidateId(id)
                  .priority(groupOptions.priority())
                  .gate(
                      office ->
                          healthy ? Gate.Decision.allow() : Gate.Decision.deny("soak: health down"))
                  .build());
      election.addHandler(
          new LeadershipHandler() {
            @Override
            public void acquired(Leadership leadership) {
              log.acquired(id, leadership);
            }

            @Override
            public void lost(Leadership leadership, LossReason reason) {
              log.lost(id, leadership, reason);
            }
          });
      group.add(election);
      elections.add(election);
    }
    client = newClient;
    session = newSession;
    elections.forEach(Election::start);
  }

  /** How many offices it leads now (0 while closed). */
  synchronized int leads() {
    return (int) elections.stream().filter(Election::isLeader).count();
  }

  /**
   * Its health goes DOWN, as the starter's health gate sees it: it resigns every office (each
   * through its safe point) and joins again at once, where its gate keeps it out of every line.
   */
  synchronized void healthDown() {
    healthy = false;
    for (Election election : elections) {
      election.resignAsync().thenRun(election::start);
    }
  }

  /** Its health is UP again: its elections campaign after their back-off. */
  void healthUp() {
    healthy = true;
  }

  /** Black-holes every connection of this member: a silent partition. */
  void cut() {
    proxies.forEach(TcpProxy::blackhole);
  }

  void restore() {
    proxies.forEach(TcpProxy::restore);
  }

  /** Closes the session (its elections resign) and the client; {@link #open()} starts it again. */
  synchronized void stop() {
    if (session != null) {
      session.close();
      session = null;
    }
    if (client != null) {
      client.close();
      client = null;
    }
    elections.clear();
  }

  @Override
  public void close() {
    stop();
    proxies.forEach(TcpProxy::close);
  }
}
