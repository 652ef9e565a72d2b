package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.InvalidArgumentException;
import dev.conch.process.ExternalCommandRunner;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ExternalCommandRunner} that {@code conch.runner.*} describes, and the {@link Election}
 * bean of its office, made together: the runner creates its own election, and that election is this
 * instance's one candidate for the office. A runner runs once, so each start after a stop builds a
 * fresh one from the same settings.
 */
final class SupervisedOffice implements AutoCloseable {

  /** The name of this bean, which the Election bean of the runner's office depends on. */
  static final String BEAN_NAME = "conchSupervisedOffice";

  private final RunnerElection election;

  private SupervisedOffice(RunnerElection election) {
    this.election = election;
  }

  /** The Election bean of the runner's office. */
  RunnerElection election() {
    return this.election;
  }

  /** The current runner: the one that runs, ran last, or runs next. */
  ExternalCommandRunner runner() {
    return this.election.runner();
  }

  /** Starts a runner; after a stop, a fresh one (see {@link RunnerElection}). */
  void start() {
    this.election.startRunner();
  }

  /** Stops the current runner; idempotent. */
  void stop() {
    this.election.stopRunner();
  }

  /**
   * Stops the runner for good: also when the application's own Election beans leave the runner's
   * election out of the context's beans.
   */
  @Override
  public void close() {
    this.election.close();
  }

  /**
   * Builds the runner (nothing runs before it is started).
   *
   * @param prefix the etcd key prefix, so that the command sees {@code ETCD_LOCK_KEY}; {@code null}
   *     without etcd
   * @throws
   *     org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
   *     naming the property whose value was refused; a kill-after that cannot fit before the lease
   *     deadline is refused as {@code conch.runner.kill-after}
   */
  static SupervisedOffice create(
      ConchRunnerProperties runner,
      ElectionFactory factory,
      ConfiguredOffices offices,
      @Nullable String prefix) {
    String office = offices.runnerOffice();
    if (office == null) {
      throw new InvalidArgumentException(
          "conch.runner.office",
          null,
          "an office for the runner: set conch.runner.office, conch.office or"
              + " spring.application.name");
    }
    SettingProperties properties = factory.properties(office);
    HandlerChain handlers = new HandlerChain();
    AtomicReference<Election> created = new AtomicReference<>();
    ExternalCommandRunner.Builder builder =
        ExternalCommandRunner.builder(
                office,
                options -> {
                  Election election = factory.createWith(options, runner);
                  // Registered before the runner's own handler, which the builder adds next: the
                  // application's hooks run before the command starts and after it stopped.
                  election.addHandler(handlers);
                  created.set(election);
                  return election;
                })
            .command(runner.getCommand())
            .restart(runner.isRestart())
            .killAfter(runner.getKillAfter())
            .onAcquire(runner.getOnAcquire())
            .onLose(runner.getOnLose())
            .hookTimeout(runner.getHookTimeout())
            .waitFor(runner.getWait())
            .electionOptions(base -> properties.check(() -> factory.options(office)));
    if (prefix != null) {
      builder.electionName(prefix + office);
    }
    Supplier<RunnerElection.Generation> generations =
        () -> {
          try {
            ExternalCommandRunner built = builder.build();
            // build() made the runner's election through the factory above.
            return new RunnerElection.Generation(
                built, Objects.requireNonNull(created.get(), "the runner's election"));
          } catch (InvalidArgumentException ex) {
            throw properties.invalid(ex);
          }
        };
    // The first runner is built now, so that a refused setting fails startup.
    return new SupervisedOffice(
        new RunnerElection(office, handlers, generations.get(), generations));
  }
}
