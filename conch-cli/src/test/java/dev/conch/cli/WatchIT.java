package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Hosts;
import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --watch}: the current state first, then one line per change, vacancies included, across
 * hand-overs between etcdctl and conch candidates; no lease.
 */
class WatchIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private String endpoints;
  private Conch conch;

  @BeforeEach
  void setUp(EtcdCluster cluster) {
    endpoints = cluster.endpoints();
    conch = Conch.at(endpoints);
  }

  @Test
  void showsEachHandOverAndVacancyInOrder() {
    try (Conch.Running watch = conch.start("elect", "w", "--watch")) {
      watch.awaitLine("w -"::equals, WAIT);
      try (Etcdctl.Background alpha =
          Etcdctl.start(endpoints, "elect", "/conch/v1/elect/w", "alpha")) {
        String first = watch.awaitLine(l -> l.startsWith("w alpha rev="), WAIT);
        try (Conch.Running candidate = conch.start("elect", "w", "--", "sleep", "60")) {
          candidate.awaitErrorLine(l -> l.contains("following"), WAIT);
          // Resigns on SIGINT only once it printed its win (else its key lives for 60 s).
          alpha.awaitLine("alpha"::equals, WAIT);
          alpha.interrupt();

          String second = watch.awaitLine(l -> l.startsWith("w " + Hosts.localName() + " "), WAIT);
          candidate.awaitErrorLine(l -> l.contains("command started"), WAIT);
          assertThat(rev(second)).isGreaterThan(rev(first));
        }
      }
      watch.awaitLine(l -> l.equals("w -") && watch.lines().size() == 4, WAIT);
      assertThat(watch.lines()).hasSize(4);
      assertThat(watch.lines().get(3)).isEqualTo("w -");
      assertThat(watch.isAlive()).isTrue();
    }
  }

  @Test
  void createsNoLease() {
    Set<String> before = leases();
    try (Conch.Running watch = conch.start("elect", "wl", "--watch")) {
      watch.awaitLine("wl -"::equals, WAIT);

      assertThat(before).containsAll(leases());
    }
  }

  @Test
  void printsJsonLines() {
    try (Conch.Running watch = conch.start("elect", "wj", "--watch", "--json")) {
      watch.awaitLine("{\"office\": \"wj\", \"vacant\": true}"::equals, WAIT);
      try (Conch.Running leader = conch.start("elect", "wj", "--", "sleep", "60")) {
        String held = watch.awaitLine(l -> l.contains("\"host\""), WAIT);

        assertThat(held)
            .startsWith("{\"office\":\"wj\",\"host\":\"" + Hosts.localName() + "\",\"pid\":")
            .contains("\"rev\":", "\"lease\":\"");
      }
      watch.awaitLine(l -> watch.lines().size() == 3, WAIT);
      assertThat(watch.lines().get(2)).isEqualTo("{\"office\": \"wj\", \"vacant\": true}");
    }
  }

  @Test
  void stopsWith130OnSigint() {
    try (Conch.Running watch = conch.start("elect", "ws", "--watch")) {
      watch.awaitLine("ws -"::equals, WAIT);

      watch.signal("INT");

      assertThat(watch.awaitExit(WAIT)).isTrue();
      assertThat(watch.result().status()).isEqualTo(130);
    }
  }

  /** The ids of the leases etcd has now. */
  private Set<String> leases() {
    Etcdctl.Result list = Etcdctl.run(endpoints, WAIT, "lease", "list");
    assertThat(list.succeeded()).as(list.stderr()).isTrue();
    return Set.copyOf(list.stdout().lines().skip(1).toList());
  }

  static long rev(String line) {
    Matcher rev = Pattern.compile("rev=(\\d+)$").matcher(line);
    assertThat(rev.find()).as(line).isTrue();
    return Long.parseLong(rev.group(1));
  }
}
