package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.LossReason;
import dev.conch.process.ExternalCommandRunner;
import dev.conch.spring.Elections;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;

/**
 * The {@link ExternalCommandRunner} bean of {@code conch.runner.*}, with real child processes on
 * in-memory offices (this instance always leads); against real etcd see {@link
 * ExternalCommandRunnerEtcdTest}.
 */
class ExternalCommandRunnerConfigurationTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "conch.office=billing");

  @TempDir Path dir;

  @Test
  void noRunnerWithoutACommand() {
    this.contextRunner.run(
        context -> {
          assertThat(context).doesNotHaveBean(ExternalCommandRunner.class);
          assertThat(context.getBean(Election.class)).isNotInstanceOf(RunnerElection.class);
        });
  }

  @Test
  void runnersElectionIsTheElectionBeanOfItsOfficeAndItsCommandStopsWithTheContext() {
    AtomicLong pid = new AtomicLong();
    this.contextRunner
        .withPropertyValues("conch.runner.command=sleep,600")
        .run(
            context -> {
              ExternalCommandRunner runner = context.getBean(ExternalCommandRunner.class);
              Election election = context.getBean(Election.class);
              assertThat(election).isInstanceOf(RunnerElection.class);
              assertThat(context.getBean(Elections.class).get("billing")).isSameAs(election);
              assertThat(context.getBean(Elections.class).all()).hasSize(1);
              await().atMost(WAIT).until(() -> runner.childPid().isPresent());
              pid.set(runner.childPid().orElseThrow());
              assertThat(ProcessHandle.of(pid.get()))
                  .hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
            });
    assertThat(ProcessHandle.of(pid.get()).map(ProcessHandle::isAlive))
        .isNotEqualTo(Optional.of(true));
  }

  @Test
  void runnerOfAnotherOfficeHasAnElectionBeanOfItsOwn() {
    this.contextRunner
        .withPropertyValues("conch.runner.command=sleep,600", "conch.runner.office=batch")
        .run(
            context -> {
              assertThat(context.getBeansOfType(Election.class))
                  .containsOnlyKeys("conchElection.billing", "conchElection.batch");
              assertThat(context.getBean("conchElection.batch")).isInstanceOf(RunnerElection.class);
              assertThat(context.getBean("conchElection.billing"))
                  .isNotInstanceOf(RunnerElection.class);
              assertThat(context.getBean(Elections.class).offices())
                  .containsExactly("billing", "batch");
            });
  }

  @Test
  void onLeadershipMethodsOfTheRunnersOfficeRunBeforeTheCommandStartsAndAfterItStopped() {
    Path pidFile = this.dir.resolve("pid");
    AtomicReference<Recorder> recorder = new AtomicReference<>();
    this.contextRunner
        .withPropertyValues(
            "conch.runner.command[0]=sh",
            "conch.runner.command[1]=-c",
            "conch.runner.command[2]=echo $$ > " + pidFile + "; exec sleep 600",
            "test.pid-file=" + pidFile)
        .withBean(Recorder.class)
        .withBean(ProbingHooks.class)
        .run(
            context -> {
              recorder.set(context.getBean(Recorder.class));
              await().atMost(WAIT).until(() -> Files.exists(pidFile) && Files.size(pidFile) > 0);
              assertThat(context.getBean(ExternalCommandRunner.class).childPid())
                  .contains(Long.parseLong(Files.readString(pidFile).trim()));
            });
    assertThat(recorder.get().lines())
        .filteredOn(line -> line.startsWith("hook"))
        .containsExactly("hook acquired: no command", "hook lost RESIGNED: command dead");
  }

  @Test
  void loseMethodsOfTheRunnersOfficeRunOncePerTermAlsoWhenAnAcquireMethodFailed() {
    AtomicReference<Recorder> recorder = new AtomicReference<>();
    this.contextRunner
        .withPropertyValues("conch.runner.command=sleep,600", "conch.runner.restart=true")
        .withBean(Recorder.class)
        .withUserConfiguration(OnLeadershipTest.FailingOnce.class)
        .run(
            context -> {
              recorder.set(context.getBean(Recorder.class));
              ExternalCommandRunner runner = context.getBean(ExternalCommandRunner.class);
              await().atMost(WAIT).until(() -> runner.childPid().isPresent());
            });
    assertThat(recorder.get().lines())
        .filteredOn(line -> line.startsWith("hook"))
        .containsExactly(
            "hook acquired failing",
            "hook lost cleanup ACQUIRE_FAILED",
            "hook acquired failing",
            "hook lost cleanup RESIGNED");
  }

  @Test
  void transferOfTheRunnersOfficeIsRefused() {
    this.contextRunner
        .withPropertyValues("conch.runner.command=sleep,600")
        .run(
            context ->
                assertThatExceptionOfType(UnsupportedOperationException.class)
                    .isThrownBy(() -> context.getBean(Election.class).transfer())
                    .withMessageContaining("ExternalCommandRunner"));
  }

  @Test
  void killAfterThatDoesNotFitBeforeTheLeaseDeadlineIsRefusedUnderItsProperty() {
    InvalidConfigurationPropertyValueException refusal =
        refusal(
            "conch.standalone=false",
            "conch.etcd.endpoints=http://127.0.0.1:1",
            "conch.ttl=10s",
            "conch.runner.command=sleep,600",
            "conch.runner.kill-after=9000ms");

    assertThat(refusal.getName()).isEqualTo("conch.runner.kill-after");
    assertThat(refusal.getValue()).isEqualTo("9000ms");
    assertThat(refusal.getReason())
        .startsWith("Accepted: kill-after + 500ms")
        .contains("must leave at least 400ms of the ttl (10s)");
  }

  @Test
  void commandThatIsNotFoundIsRefusedUnderItsProperty() {
    InvalidConfigurationPropertyValueException refusal =
        refusal("conch.runner.command=no-such-program-of-conch");

    assertThat(refusal.getName()).isEqualTo("conch.runner.command");
    assertThat(refusal.getValue()).isEqualTo("no-such-program-of-conch");
  }

  @Test
  void emptyCommandIsRefusedUnderItsProperty() {
    // Set, if empty: Boot's list condition asks for the runner, which refuses to run nothing.
    InvalidConfigurationPropertyValueException refusal = refusal("conch.runner.command=");

    assertThat(refusal.getName()).isEqualTo("conch.runner.command");
    assertThat(refusal.getReason()).isNotBlank();
  }

  @Test
  void runnerWithoutAnyOfficeIsRefused() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
        .withPropertyValues(
            "conch.standalone=true",
            "conch.offices.billing.hook-timeout=1s",
            "conch.runner.command=sleep,600")
        .run(
            context -> {
              FailureAnalysis analysis =
                  ConchTestSupport.analyze(context, new InvalidConchConfigurationFailureAnalyzer());
              assertThat(analysis.getDescription())
                  .isEqualTo("No value for 'conch.runner.office'.");
            });
  }

  private InvalidConfigurationPropertyValueException refusal(String... properties) {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    this.contextRunner
        .withPropertyValues(properties)
        .run(
            context -> {
              assertThat(context).hasFailed();
              failure.set(context.getStartupFailure());
            });
    return InvalidConchConfigurationFailureAnalyzerTest.refusalIn(failure.get());
  }

  /** Hooks of the runner's office that look at its command when they run. */
  static class ProbingHooks {

    private final Recorder recorder;

    private final ObjectProvider<ExternalCommandRunner> runner;

    private final Path pidFile;

    ProbingHooks(
        Recorder recorder, ObjectProvider<ExternalCommandRunner> runner, Environment environment) {
      this.recorder = recorder;
      this.runner = runner;
      this.pidFile = Path.of(environment.getRequiredProperty("test.pid-file"));
    }

    @OnLeadership
    void acquired() {
      boolean running = this.runner.getObject().childPid().isPresent();
      this.recorder.add("hook acquired: " + (running ? "command running" : "no command"));
    }

    @OnLeadership(on = Transition.LOST)
    void lost(LossReason reason) throws IOException {
      long pid = Long.parseLong(Files.readString(this.pidFile).trim());
      boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
      this.recorder.add("hook lost " + reason + ": command " + (alive ? "alive" : "dead"));
    }
  }
}
