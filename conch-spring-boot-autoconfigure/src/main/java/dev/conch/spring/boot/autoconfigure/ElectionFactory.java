package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.spring.health.CandidacyPauses;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Creates the candidate of this instance for one office, with the options {@code conch.*} and
 * {@code conch.offices.<office>.*} give it, on the store of the application: the shared etcd
 * session, or the in-memory offices in standalone mode.
 */
final class ElectionFactory {

  /** The name of this bean, which every Election bean depends on. */
  static final String BEAN_NAME = "conchElectionFactory";

  private final ConchProperties properties;

  private final ConfiguredOffices offices;

  private final Function<ElectionOptions, Election> store;

  private final @Nullable OfficeTimings timings;

  private final CandidacyPauses pauses;

  private final @Nullable ThreadFactory hookThreads;

  ElectionFactory(
      ConchProperties properties,
      ConfiguredOffices offices,
      Function<ElectionOptions, Election> store,
      @Nullable OfficeTimings timings,
      CandidacyPauses pauses) {
    this(properties, offices, store, timings, pauses, null);
  }

  /**
   * @param timings where the timing budget of each election made in etcd is recorded; {@code null}
   *     for the in-memory store, which has no lease
   * @param pauses the gate of each office that requires health
   * @param hookThreads makes the threads the offices' hooks run on, or {@code null} for the core's
   */
  ElectionFactory(
      ConchProperties properties,
      ConfiguredOffices offices,
      Function<ElectionOptions, Election> store,
      @Nullable OfficeTimings timings,
      CandidacyPauses pauses,
      @Nullable ThreadFactory hookThreads) {
    this.properties = properties;
    this.offices = offices;
    this.store = store;
    this.timings = timings;
    this.pauses = pauses;
    this.hookThreads = hookThreads;
  }

  /**
   * A new candidate for {@code office}, not started.
   *
   * @throws dev.conch.InvalidArgumentException naming the property whose value was refused
   */
  Election create(String office) {
    SettingProperties names = properties(office);
    ElectionOptions options = names.check(() -> options(office));
    Election election = names.check(() -> this.store.apply(options));
    if (this.timings != null) {
      this.timings.record(options);
    }
    return election;
  }

  /**
   * A new candidate on the store with {@code options} as {@code runner}'s runner made them: the
   * caller checked them and names what the store refuses (the runner does, for its kill-after).
   */
  Election createWith(ElectionOptions options, ConchRunnerProperties runner) {
    Election election = this.store.apply(options);
    if (this.timings != null) {
      this.timings.recordRunner(options, runner);
    }
    return election;
  }

  /** The options of {@code office}: its own overrides, else the conch.* defaults. */
  ElectionOptions options(String office) {
    ConchProperties.Office own = this.properties.getOffices().get(office);
    if (own == null) {
      own = new ConchProperties.Office();
    }
    return ElectionOptions.builder(office)
        .candidateId(this.properties.getCandidate().getId())
        .priority(this.properties.getCandidate().getPriority())
        .hookTimeout(or(own.getHookTimeout(), this.properties.getHookTimeout()))
        .stopTimeout(or(own.getStopTimeout(), this.properties.getStopTimeout()))
        .safetyMargin(or(own.getSafetyMargin(), this.properties.getSafetyMargin()))
        .eventBuffer(this.properties.getEventBuffer())
        .retryInitial(this.properties.getRetry().getInitial())
        .retryMax(this.properties.getRetry().getMax())
        .gate(this.pauses.gate(office))
        .hookThreads(this.hookThreads)
        .build();
  }

  /** The property behind each setting of {@code office}, for naming a refusal. */
  SettingProperties properties(String office) {
    return SettingProperties.of(this.properties, this.offices, office);
  }

  private static Duration or(@Nullable Duration override, Duration fallback) {
    return override != null ? override : fallback;
  }
}
