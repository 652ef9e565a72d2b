package dev.conch.cli;

import dev.conch.EtcdUnavailableException;
import dev.conch.Holder;
import dev.conch.Hosts;
import dev.conch.TermRecord;
import dev.conch.etcd.LeaderWatcher;
import dev.conch.etcd.TermHistory;
import io.etcd.jetcd.Client;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read forms: {@code --who} and {@code --assert} (one read of the leader) and {@code --watch},
 * without a lease, over etcd's JSON gateway ({@link Gateway}): a read must not pay for starting
 * gRPC.
 */
final class ReadForms {

  private static final Logger log = LoggerFactory.getLogger(ReadForms.class);

  private ReadForms() {}

  /** Runs the form; returns its exit status. */
  static int run(ReadRequest request, PrintStream out) throws InterruptedException {
    Gateway gateway =
        new Gateway(
            request.endpoints(),
            PemTls.socketFactory(request.cacert(), request.cert(), request.key()),
            request.user(),
            request.password());
    try {
      return run(request, gateway, out);
    } catch (EtcdUnavailableException e) {
      if (!(e.getCause() instanceof Gateway.EtcdError answer && answer.gatewayUnusable())) {
        throw e;
      }
      // Nothing was printed yet: the first read failed. gRPC may serve where the gateway cannot.
      log.debug(
          "office {}: etcd's JSON gateway cannot serve ({}); asking over gRPC",
          request.office(),
          e.getMessage());
      try (Client client = ConnectionOptions.connect(request);
          LeaderWatcher.Source grpc = LeaderWatcher.source(client)) {
        return run(request, grpc, out);
      }
    }
  }

  private static int run(ReadRequest request, LeaderWatcher.Source gateway, PrintStream out)
      throws InterruptedException {
    String office = request.office();
    return switch (request.form()) {
      case WHO -> who(leader(gateway, request), office, request.json(), out);
      case ASSERT ->
          assertHeld(leader(gateway, request), office, request.minRev(), request.json(), out);
      case HISTORY -> history(terms(gateway, request), office, request.json(), out);
      case WHY ->
          why(terms(gateway, request), leader(gateway, request), office, request.json(), out);
      case WATCH -> {
        LeaderWatcher watcher =
            new LeaderWatcher(
                gateway,
                request.session(),
                office,
                leader -> out.println(Views.leader(office, leader, request.json())));
        watcher.run(
            FirstAnswer.within(
                ConnectionOptions.CALL_TIMEOUT,
                "reading the candidates of office '" + office + "'",
                timeout -> gateway.range(watcher.candidatePrefix(), false, timeout)));
        yield ExitStatus.OK;
      }
    };
  }

  /** The leader: the candidate key with the smallest create revision, asked until the bound. */
  private static Optional<Holder> leader(LeaderWatcher.Source gateway, ReadRequest request)
      throws InterruptedException {
    String office = request.office();
    LeaderWatcher.Source.Range first =
        FirstAnswer.within(
            ConnectionOptions.CALL_TIMEOUT,
            "reading the leader of office '" + office + "'",
            timeout ->
                gateway.range(
                    LeaderWatcher.candidatePrefix(request.session(), office), true, timeout));
    return first.kvs().stream()
        .findFirst()
        .map(kv -> Holder.parse(office, kv.value(), kv.createRevision(), kv.lease()));
  }

  /** The office's last terms ({@code request.terms()} of them), oldest first. */
  private static List<TermRecord> terms(LeaderWatcher.Source gateway, ReadRequest request)
      throws InterruptedException {
    String office = request.office();
    LeaderWatcher.Source.Range newest =
        FirstAnswer.within(
            ConnectionOptions.CALL_TIMEOUT,
            "reading the history of office '" + office + "'",
            timeout ->
                gateway.newest(
                    TermHistory.prefix(request.session().metaRoot(), office),
                    request.terms(),
                    timeout));
    return TermHistory.fromNewest(
        office, newest.kvs().stream().map(LeaderWatcher.Source.Kv::value).toList());
  }

  /** Prints the terms, oldest first, a line each; 3 when there is none (nothing printed). */
  static int history(List<TermRecord> terms, String office, boolean json, PrintStream out) {
    if (terms.isEmpty()) {
      log.info("office {}: no recorded term (never led, or no history kept)", office);
      return ExitStatus.NO_HISTORY;
    }
    for (TermRecord term : terms) {
      out.println(json ? term.toViewJson() : Views.termLine(term));
    }
    return ExitStatus.OK;
  }

  /**
   * Prints the office's last change in one sentence, checked against who leads now (a term whose
   * end no one recorded yet is not said to lead); 3 when there is no recorded term.
   */
  static int why(
      List<TermRecord> terms,
      Optional<Holder> leader,
      String office,
      boolean json,
      PrintStream out) {
    if (terms.isEmpty()) {
      log.info("office {}: no recorded term (never led, or no history kept)", office);
      return ExitStatus.NO_HISTORY;
    }
    String sentence = Views.why(office, terms, leader);
    out.println(json ? Views.whyJson(office, sentence, terms, leader) : sentence);
    return ExitStatus.OK;
  }

  /** Prints the leader; 1 when the office is vacant (nothing printed). */
  static int who(Optional<Holder> leader, String office, boolean json, PrintStream out) {
    if (leader.isEmpty()) {
      log.info("office {}: vacant", office);
      return ExitStatus.NO;
    }
    out.println(Views.leader(office, leader, json));
    return ExitStatus.OK;
  }

  /**
   * 0 when this host holds the office with a create revision of at least {@code minRev}, else 1;
   * prints the answer only with {@code --json}. Any process on this host counts: the question is
   * "is the work of this office being done here".
   */
  static int assertHeld(
      Optional<Holder> leader, String office, long minRev, boolean json, PrintStream out) {
    String me = Hosts.localName();
    boolean here = leader.filter(h -> h.isConch() && me.equals(h.host())).isPresent();
    boolean held = here && leader.get().rev() >= minRev;
    if (json) {
      out.println(Views.assertion(held, leader));
    }
    if (!held) {
      String why =
          leader.isEmpty()
              ? "vacant"
              : here
                  ? "held here at rev " + leader.get().rev() + ", below --min-rev " + minRev
                  : "held elsewhere: " + Views.holderLine(leader.get());
      log.info("office {}: not held by {}: {}", office, me, why);
    }
    return held ? ExitStatus.OK : ExitStatus.NO;
  }
}
