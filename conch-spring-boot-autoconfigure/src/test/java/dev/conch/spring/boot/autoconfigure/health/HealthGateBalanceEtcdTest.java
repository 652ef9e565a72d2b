package dev.conch.spring.boot.autoconfigure.health;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health gate and the fair share together, against a real etcd member: three instances share
 * twelve offices 4 / 4 / 4 under {@code conch.require-health}; one's indicator goes DOWN, it
 * resigns its offices and the others lead 6 / 6 / 0 (the DOWN one stands in no line, so it is
 * handed nothing); once it is UP again it stands in every line and gets its share back: 4 / 4 / 4.
 */
@Timeout(180)
class HealthGateBalanceEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final int OFFICES = 12;

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  HealthContributorRegistryAutoConfiguration.class,
                  CandidacyHealthAutoConfiguration.class))
          .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
          .withPropertyValues(
              "conch.etcd.timeout=2s",
              "conch.require-health=db",
              "conch.quarantine=0s",
              "conch.balance.delay=300ms");

  private ApplicationContextRunner instance(String prefix, String id) {
    List<String> properties = new ArrayList<>();
    properties.add("conch.etcd.endpoints=" + etcd.cluster().endpoints());
    properties.add("conch.office=" + prefix + "-0");
    for (int i = 1; i < OFFICES; i++) {
      properties.add("conch.offices." + prefix + "-" + i + ".hook-timeout=30s");
    }
    properties.add("conch.balance.group=" + prefix);
    properties.add("conch.candidate.id=" + id);
    return this.contextRunner.withPropertyValues(properties.toArray(String[]::new));
  }

  @Test
  void anInstanceDownAndUpAgainGetsItsShareBack() {
    String prefix = freshOffice("gate");
    instance(prefix, "a")
        .run(
            a ->
                instance(prefix, "b")
                    .run(
                        b ->
                            instance(prefix, "c")
                                .run(
                                    c -> {
                                      List<AssertableApplicationContext> all = List.of(a, b, c);
                                      await()
                                          .atMost(WAIT)
                                          .until(() -> shares(all).equals(List.of(4, 4, 4)));

                                      c.getBean(ToggledHealthIndicator.class).down();
                                      await()
                                          .atMost(WAIT)
                                          .until(() -> shares(all).equals(List.of(6, 6, 0)));
                                      assertThat(elections(c))
                                          .allMatch(e -> e.state() == State.DENIED);
                                      // Refused or not tried: c is in no line, nothing moves.
                                      await()
                                          .during(Duration.ofSeconds(2))
                                          .atMost(WAIT)
                                          .until(() -> shares(all).equals(List.of(6, 6, 0)));

                                      long up = System.nanoTime();
                                      c.getBean(ToggledHealthIndicator.class).up();
                                      await()
                                          .atMost(WAIT)
                                          .until(() -> shares(all).equals(List.of(4, 4, 4)));
                                      System.out.printf(
                                          "health gate cycle: 4/4/4 again %d ms after c was UP%n",
                                          (System.nanoTime() - up) / 1_000_000);
                                    })));
  }

  private static List<Integer> shares(List<AssertableApplicationContext> instances) {
    return instances.stream()
        .map(i -> (int) elections(i).stream().filter(Election::isLeader).count())
        .toList();
  }

  private static List<Election> elections(AssertableApplicationContext context) {
    return context.getBean(Elections.class).all();
  }
}
