package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code --user} with {@code --password} or {@code $CONCH_PASSWORD}, on an etcd with auth on. */
class AuthIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  @BeforeAll
  static void enableAuth(EtcdCluster cluster) {
    String endpoints = cluster.endpoints();
    for (String[] command :
        new String[][] {
          {"user", "add", "root", "--new-user-password=secret"},
          {"user", "grant-role", "root", "root"},
          {"auth", "enable"}
        }) {
      Etcdctl.Result result = Etcdctl.run(endpoints, WAIT, command);
      assertThat(result.succeeded()).as(result.stderr()).isTrue();
    }
  }

  @Test
  void passwordFromTheFlagOrTheEnvironmentLogsIn(EtcdCluster cluster) {
    Conch conch = Conch.at(cluster.endpoints());

    Conch.Result flag = conch.run("elect", "a", "--who", "--user", "root", "--password", "secret");
    Conch.Result env =
        conch
            .env("CONCH_PASSWORD", "secret")
            .run("elect", "a", "--user", "root", "--", "echo", "ran");

    assertThat(flag.status()).as(flag.stderr()).isEqualTo(1);
    assertThat(env.status()).as(env.stderr()).isZero();
    assertThat(env.stdout()).isEqualTo("ran\n");
  }

  @Test
  void aRefusedLoginExits69WithAHint(EtcdCluster cluster) {
    Conch conch = Conch.at(cluster.endpoints());

    Conch.Result wrong = conch.run("elect", "a", "--who", "--user", "root", "--password", "nope");
    Conch.Result none = conch.run("elect", "a", "--who");

    assertThat(wrong.status()).isEqualTo(69);
    assertThat(wrong.stderr()).contains("authentication failed", "--user", "$CONCH_PASSWORD");
    assertThat(none.status()).isEqualTo(69);
  }

  @Test
  void aWrongPasswordInRunModeNamesTheCause(EtcdCluster cluster) {
    Conch.Result wrong =
        Conch.at(cluster.endpoints())
            .run("elect", "a", "--user", "root", "--password", "nope", "--", "true");

    assertThat(wrong.status()).as(wrong.stderr()).isEqualTo(69);
    assertThat(wrong.stderr()).contains("authentication failed", "--user");
  }

  @Test
  void watchLogsInToo(EtcdCluster cluster) {
    Conch conch = Conch.at(cluster.endpoints()).env("CONCH_PASSWORD", "secret");
    try (Conch.Running watch = conch.start("elect", "aw", "--watch", "--user", "root")) {
      watch.awaitLine("aw -"::equals, WAIT);
      try (Conch.Running leader =
          conch.start("elect", "aw", "--user", "root", "--", "sleep", "60")) {
        watch.awaitLine(l -> l.startsWith("aw ") && !l.equals("aw -"), WAIT);
      }
    }
  }
}
