package dev.conch.spring.boot.autoconfigure;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.test.EtcdExtension;
import dev.conch.test.EtcdMember;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A Spring application through a long etcd outage, with the client conch configures (built on first
 * use): once etcd is back it leads again as soon as the core alone would, because gRPC's reconnect
 * back-off (grown to tens of seconds by then) is cut short for it too.
 */
@ExtendWith(OutputCaptureExtension.class)
class EtcdOutageTest {

  @RegisterExtension final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration TTL = Duration.ofSeconds(3);

  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void leadsAgainWithinTtlPlusTwoSecondsOfTheEndOfAThirtySecondOutage(CapturedOutput output) {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
        .withPropertyValues(
            "conch.etcd.endpoints=" + this.etcd.cluster().endpoints(),
            "conch.office=" + freshOffice("outage"),
            "conch.ttl=" + TTL.toSeconds() + "s",
            "conch.etcd.timeout=1s")
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              EtcdMember member = this.etcd.cluster().member(0);

              member.stop();
              // Long enough for gRPC's back-off to grow well past the TTL, had it been left alone.
              await()
                  .pollDelay(Duration.ofSeconds(30))
                  .atMost(Duration.ofSeconds(60))
                  .until(() -> !election.isLeader());
              member.start();

              // Issue 8's requirement, for the Spring client: a leader within TTL + 2 s.
              await().atMost(TTL.plusSeconds(2)).until(election::isLeader);
              assertThat(output).doesNotContain("cannot reset gRPC's reconnect back-off");
            });
  }
}
