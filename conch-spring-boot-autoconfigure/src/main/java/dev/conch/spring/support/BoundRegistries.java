package dev.conch.spring.support;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The registries one {@link MeterBinder} of conch was bound to: Spring Boot binds each binder bean
 * to the application's registry, or to each registry when there is no composite, and a meter
 * registered as its event comes is registered and counted in every one of them.
 */
public final class BoundRegistries {

  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

  /** Adds the registry a binder was bound to. */
  public void add(MeterRegistry registry) {
    this.registries.add(registry);
  }

  /**
   * Registers {@code counter} in each registry (once: a second time returns the first) and adds.
   */
  public void increment(Counter.Builder counter, double amount) {
    for (MeterRegistry registry : this.registries) {
      counter.register(registry).increment(amount);
    }
  }

  /** Runs {@code action} on each registry. */
  public void forEach(Consumer<MeterRegistry> action) {
    this.registries.forEach(action);
  }
}
