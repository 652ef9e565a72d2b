package dev.conch.spring.boot.autoconfigure.health;

import dev.conch.spring.Elections;
import dev.conch.spring.support.ConchLifecycle;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Refuses {@code conch.health.readiness-leader=true} at start-up where this instance could never be
 * ready: without a default office, or when it does not campaign for it.
 */
final class ReadinessLeaderCheck implements SmartInitializingSingleton {

  static final String PROPERTY = "conch.health.readiness-leader";

  private final Elections elections;

  private final ObjectProvider<ConchLifecycle> lifecycle;

  ReadinessLeaderCheck(Elections elections, ObjectProvider<ConchLifecycle> lifecycle) {
    this.elections = elections;
    this.lifecycle = lifecycle;
  }

  @Override
  public void afterSingletonsInstantiated() {
    // The offices that only hooks name join when the lifecycle is wired (it is wired once).
    this.lifecycle.ifAvailable(ConchLifecycle::afterSingletonsInstantiated);
    String office =
        this.elections
            .defaultOffice()
            .orElseThrow(
                () ->
                    refused(
                        "a default office whose leadership readiness follows: set conch.office or"
                            + " spring.application.name"));
    if (this.elections.find(office).isEmpty()) {
      throw refused(
          "a default office this instance campaigns for, else it would never be ready: office '"
              + office
              + "' has no election (this instance campaigns for "
              + this.elections.offices()
              + "); add an Election bean for it or set conch.office to one of those");
    }
  }

  private static InvalidConfigurationPropertyValueException refused(String accepted) {
    return new InvalidConfigurationPropertyValueException(
        PROPERTY, "true", "Accepted: " + accepted + ".");
  }
}
