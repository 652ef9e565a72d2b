package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A {@code conch.*} property nothing binds is said at start-up, in one WARN line, with the name it
 * was probably meant to be; the names Boot binds (relaxed, indexed, per office, from environment
 * variables) are not.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnknownConchPropertiesTest {

  private static final String WARNING = "Unknown conch propert";

  @Test
  void typosAreWarnedInOneLineNamingWhatTheyMeant(CapturedOutput output) {
    run(
        new StandardEnvironment(),
        "--conch.etcd.endpoint=http://127.0.0.1:2379",
        "--conch.tll=10s",
        "--conch.offices.x.stop-timout=2s");
    List<String> lines = warnings(output);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0))
        .contains("WARN")
        .contains("conch.etcd.endpoint (")
        .contains("did you mean conch.etcd.endpoints?")
        .contains("conch.tll (")
        .contains("did you mean conch.ttl?")
        .contains("conch.offices.x.stop-timout (")
        .contains("did you mean conch.offices.x.stop-timeout?")
        .contains("commandLineArgs");
  }

  @Test
  void aNameFarFromEveryKnownOneIsWarnedWithoutAGuess(CapturedOutput output) {
    run(new StandardEnvironment(), "--conch.leader-election.mode=fast");
    assertThat(warnings(output))
        .singleElement()
        .asString()
        .contains("Unknown conch property, ignored")
        .contains("conch.leader-election.mode (")
        .doesNotContain("did you mean");
  }

  @Test
  void anEnvironmentVariableIsComparedAsBootBindsIt(CapturedOutput output) {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new SystemEnvironmentPropertySource(
                "test-systemEnvironment", Map.of("CONCH_ETCD_TIMEOUT", "2s", "CONCH_TLL", "10s")));
    run(environment);
    assertThat(warnings(output))
        .singleElement()
        .asString()
        .contains("conch.tll (")
        .contains("CONCH_TLL")
        .contains("did you mean conch.ttl?")
        .doesNotContain("timeout");
  }

  @Test
  void theNamesBootBindsGiveNoWarning(CapturedOutput output) {
    StandardEnvironment environment = new StandardEnvironment();
    environment
        .getPropertySources()
        .addFirst(
            new SystemEnvironmentPropertySource(
                "test-systemEnvironment",
                Map.of(
                    "CONCH_STOP_TIMEOUT", "2s",
                    "CONCH_STOPTIMEOUT", "2s",
                    "CONCH_OFFICES_BILLING_HOOKTIMEOUT", "5s",
                    "CONCH_ETCD_ENDPOINTS_0", "http://127.0.0.1:2379",
                    // Set by conch elect for the command it runs, which may be this application.
                    "CONCH_REV", "42",
                    "CONCH_NAME", "billing")));
    run(
        environment,
        "--conch.etcd.endpoints=http://127.0.0.1:2379,http://127.0.0.1:2380",
        "--conch.etcd.endpoints[2]=http://127.0.0.1:2381",
        "--conch.ttl=10s",
        "--conch.stopTimeout=1s",
        "--conch.offices.x.stop-timeout=2s",
        "--conch.offices[order.sync].lifecycle-beans=a,b",
        "--conch.offices.billing.require-health[0]=db",
        "--conch.require-health=readiness",
        "--conch.candidate.priority=2",
        "--conch.runner.kill-after=5s",
        "--conch.fence.jdbc.initialize-schema=never",
        "--conch.health.readiness-leader=false",
        "--conch.health.require=",
        "--conch.health.quarantine=5s",
        "--conch.health.interval=2s",
        "--conch.health.timeout=3s",
        "--conch.quarantine=5s",
        "--conch.enabled=true");
    assertThat(output).doesNotContain(WARNING);
  }

  private static void run(StandardEnvironment environment, String... args) {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Empty.class)
            .environment(environment)
            .web(WebApplicationType.NONE)
            .run(args)) {
      assertThat(context.isActive()).isTrue();
    }
  }

  private static List<String> warnings(CapturedOutput output) {
    return output.getOut().lines().filter(line -> line.contains(WARNING)).toList();
  }

  @Configuration(proxyBeanMethods = false)
  static class Empty {}
}
