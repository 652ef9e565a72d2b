package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
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

  ElectionFactory(
      ConchProperties properties,
      ConfiguredOffices offices,
      Function<ElectionOptions, Election> store) {
    this.properties = properties;
    this.offices = offices;
    this.store = store;
  }

  /**
   * A new candidate for {@code office}, not started.
   *
   * @throws dev.conch.InvalidArgumentException naming the property whose value was refused
   */
  Election create(String office) {
    Map<String, String> names = propertyNames(office);
    ElectionOptions options = ConchChecks.check(names, () -> options(office));
    return ConchChecks.check(names, () -> this.store.apply(options));
  }

  /**
   * A new candidate on the store with {@code options} as they are: the caller checked them and
   * names what the store refuses (the runner does, for its kill-after).
   */
  Election createWith(ElectionOptions options) {
    return this.store.apply(options);
  }

  /** The options of {@code office}: its own overrides, else the conch.* defaults. */
  ElectionOptions options(String office) {
    ConchProperties.Office own = own(office);
    return ElectionOptions.forOffice(office)
        .withCandidateId(this.properties.getCandidate().getId())
        .withHookTimeout(or(own.getHookTimeout(), this.properties.getHookTimeout()))
        .withStopTimeout(or(own.getStopTimeout(), this.properties.getStopTimeout()))
        .withSafetyMargin(or(own.getSafetyMargin(), this.properties.getSafetyMargin()))
        .withEventBuffer(this.properties.getEventBuffer())
        .withRetry(this.properties.getRetry().getInitial(), this.properties.getRetry().getMax());
  }

  /** Which property each setting of the core came from, for {@code office}. */
  Map<String, String> propertyNames(String office) {
    ConchProperties.Office own = own(office);
    String prefix = "conch.offices." + office + ".";
    Map<String, String> names = new HashMap<>();
    names.put("office", this.offices.propertyOf(office));
    names.put("hook-timeout", source(own.getHookTimeout(), prefix, "hook-timeout"));
    names.put("stop-timeout", source(own.getStopTimeout(), prefix, "stop-timeout"));
    names.put("safety-margin", source(own.getSafetyMargin(), prefix, "safety-margin"));
    names.put("retry-initial", "conch.retry.initial");
    names.put("retry-max", "conch.retry.max");
    return names;
  }

  private ConchProperties.Office own(String office) {
    ConchProperties.Office own = this.properties.getOffices().get(office);
    return own != null ? own : new ConchProperties.Office();
  }

  private static String source(@Nullable Duration override, String prefix, String name) {
    return override != null ? prefix + name : "conch." + name;
  }

  private static Duration or(@Nullable Duration override, Duration fallback) {
    return override != null ? override : fallback;
  }
}
