package dev.conch.spring.boot.autoconfigure.lifecycle;

import dev.conch.Election;
import dev.conch.spring.boot.autoconfigure.ConchProperties;
import dev.conch.spring.boot.autoconfigure.Elections;
import dev.conch.spring.boot.autoconfigure.lifecycle.LeaderLifecycleBeanPostProcessor.Binding;
import dev.conch.spring.boot.autoconfigure.lifecycle.OfficeLifecycleHandler.Named;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.context.SmartLifecycle;

/**
 * Gives each office with bound {@link org.springframework.context.Lifecycle Lifecycle} beans the
 * hook that starts and stops them. It starts just before the elections start campaigning, so that
 * the hook is in place for the first win, and after the other hooks of the office: on a win the
 * {@code @OnLeadership} methods run first, then the beans start; on a loss the beans stop first.
 */
final class OfficeLifecycles implements SmartLifecycle {

  /** Just before campaigning starts (conch's lifecycle runs at {@code DEFAULT_PHASE - 512}). */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 513;

  private final LeaderLifecycleBeanPostProcessor beans;

  private final Elections elections;

  private final ConchProperties properties;

  private volatile boolean running;

  // Guarded by this.
  private boolean wired;

  OfficeLifecycles(
      LeaderLifecycleBeanPostProcessor beans, Elections elections, ConchProperties properties) {
    this.beans = beans;
    this.elections = elections;
    this.properties = properties;
  }

  @Override
  public synchronized void start() {
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
            election.addHandler(new OfficeLifecycleHandler(office, named, stopTimeout(office)));
          });
    }
    this.running = true;
  }

  private Duration stopTimeout(String office) {
    ConchProperties.Office own = this.properties.getOffices().get(office);
    Duration timeout = (own != null) ? own.getStopTimeout() : null;
    return (timeout != null) ? timeout : this.properties.getStopTimeout();
  }

  @Override
  public void stop() {
    // The elections resign before this (conch's lifecycle stops first): the hooks stopped the
    // beans.
    this.running = false;
  }

  @Override
  public boolean isRunning() {
    return this.running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
