package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.etcd.EtcdSession;
import dev.conch.process.ExternalCommandRunner;
import dev.conch.spring.Elections;
import dev.conch.test.EtcdExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.SmartLifecycle;

/**
 * A context stopped and started again, as Spring Framework 7 pauses cached test contexts and CRaC
 * checkpoints do, against a real etcd member: in between this instance holds no office and runs no
 * command, and says so; after the start it campaigns for every office again, with new tokens, and
 * the runner's command runs again.
 */
@Timeout(120)
class ContextRestartEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void stopThenStartCampaignsForEveryOfficeAndRunsTheCommandAgain() {
    run(context -> stopAndStartAgain(context, context::stop, context::start));
  }

  @Test
  void pauseThenRestartCampaignsForEveryOfficeAndRunsTheCommandAgain() {
    run(context -> stopAndStartAgain(context, context::pause, context::restart));
  }

  private void run(ContextConsumer<AssertableApplicationContext> test) {
    String suffix = ConchTestSupport.freshOffice("restart");
    Path started = this.dir.resolve("started");
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
        .withPropertyValues(
            "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
            "conch.ttl=10s",
            "conch.office=web-" + suffix,
            "conch.offices.billing-" + suffix + ".hook-timeout=5s",
            "conch.runner.office=batch-" + suffix,
            "conch.runner.kill-after=2s",
            "conch.runner.command[0]=sh",
            "conch.runner.command[1]=-c",
            "conch.runner.command[2]=echo $$ > "
                + started
                + ".tmp && mv "
                + started
                + ".tmp "
                + started
                + " && exec sleep 600")
        .run(test);
  }

  private void stopAndStartAgain(
      AssertableApplicationContext context, Runnable stop, Runnable start) throws Exception {
    List<Election> elections = context.getBean(Elections.class).all();
    assertThat(elections).hasSize(3);
    Map<String, SmartLifecycle> lifecycles = conchLifecycles(context);
    assertThat(lifecycles).hasSize(2);
    awaitLeadingEverywhere(elections);
    Map<String, Long> tokens = tokens(elections);
    long pid = awaitCommand(context);

    stop.run();

    assertThat(lifecycles.values()).noneMatch(SmartLifecycle::isRunning);
    assertThat(elections).noneMatch(Election::isLeader);
    EtcdSession session = context.getBean(EtcdSession.class);
    // The offices were left, not abandoned to the TTL: no key of this instance remains.
    assertThat(elections).allSatisfy(e -> assertThat(session.leader(e.office())).isEmpty());
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    assertThat(context.getBean(ExternalCommandRunner.class).childPid()).isEmpty();
    Files.delete(this.dir.resolve("started"));

    start.run();

    assertThat(lifecycles.values()).allMatch(SmartLifecycle::isRunning);
    awaitLeadingEverywhere(elections);
    assertThat(elections)
        .allSatisfy(e -> assertThat(e.token().orElseThrow()).isGreaterThan(tokens.get(e.office())));
    long again = awaitCommand(context);
    assertThat(again).isNotEqualTo(pid);
    assertThat(context.getBean(ExternalCommandRunner.class).childPid()).contains(again);
  }

  private static Map<String, SmartLifecycle> conchLifecycles(AssertableApplicationContext context) {
    Map<String, SmartLifecycle> all = new HashMap<>(context.getBeansOfType(SmartLifecycle.class));
    all.keySet().retainAll(List.of("conchLifecycle", "conchExternalCommandRunnerLifecycle"));
    return all;
  }

  private static void awaitLeadingEverywhere(List<Election> elections) {
    await().atMost(WAIT).until(() -> elections.stream().allMatch(Election::isLeader));
  }

  private static Map<String, Long> tokens(List<Election> elections) {
    Map<String, Long> tokens = new HashMap<>();
    elections.forEach(e -> tokens.put(e.office(), e.token().orElseThrow()));
    return tokens;
  }

  private long awaitCommand(AssertableApplicationContext context) {
    Path started = this.dir.resolve("started");
    await().atMost(WAIT).until(() -> Files.exists(started));
    long pid = Long.parseLong(read(started));
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);
    await()
        .atMost(WAIT)
        .until(() -> context.getBean(ExternalCommandRunner.class).childPid().isPresent());
    return pid;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
