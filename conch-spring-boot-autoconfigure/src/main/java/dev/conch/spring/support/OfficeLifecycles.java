package dev.conch.spring.support;

import dev.conch.Election;
import dev.conch.spring.Elections;
import dev.conch.spring.support.LeaderLifecycleBeanPostProcessor.Binding;
import dev.conch.spring.support.OfficeLifecycleHandler.Named;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.context.SmartLifecycle;

/**
 * Gives each office with bound {@link org.springframework.context.Lifecycle Lifecycle} beans the
 * hook that starts and stops them. It starts just before the elections start campaigning, so that
 * the hook is in place for the first win, and after the other hooks of the office: on a win the
 * {@code @OnLeadership} methods run first, then the beans start; on a loss the beans stop first.
 */
public final class OfficeLifecycles extends PhasedLifecycle {

  /** Just before campaigning starts (conch's lifecycle runs at {@code DEFAULT_PHASE - 512}). */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 513;

  private final LeaderLifecycleBeanPostProcessor beans;

  private final Elections elections;

  private final Function<String, Duration> stopTimeout;

  // Guarded by this.
  private boolean wired;

  /**
   * Binds the {@code Lifecycle} beans found by {@code beans} to their offices when it starts.
   *
   * @param beans the beans bound to offices
   * @param elections the application's elections
   * @param stopTimeout how long each office's beans may take to stop
   */
  public OfficeLifecycles(
      LeaderLifecycleBeanPostProcessor beans,
      Elections elections,
      Function<String, Duration> stopTimeout) {
    super(PHASE);
    this.beans = beans;
    this.elections = elections;
    this.stopTimeout = stopTimeout;
  }

  @Override
  protected void begin() {
    if (!this.wired) {
      this.wired = true;
      Map<String, List<Named>> byOffice = new LinkedHashMap<>();
      for (Binding binding : this.beans.bindings()) {
        String office =
            binding.office().isEmpty()
                ? this.elections.defaultOffice().orElseThrow()
                : binding.office();
        byOffice
            .computeIfAbsent(office, o -> new ArrayList<>())
            .add(new Named(binding.beanName(), binding.bean()));
      }
      byOffice.forEach(
          (office, named) -> {
            Election election = this.elections.get(office);
            election.addHandler(
                new OfficeLifecycleHandler(office, named, this.stopTimeout.apply(office)));
          });
    }
    // Nothing to stop: the elections resign before this (conch's lifecycle stops first), and the
    // hooks stopped the beans.
  }
}
