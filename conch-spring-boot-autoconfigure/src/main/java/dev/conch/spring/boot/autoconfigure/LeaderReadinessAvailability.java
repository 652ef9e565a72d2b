package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.InvalidArgumentException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityState;
import org.springframework.boot.availability.ReadinessState;

/**
 * The application's availability with {@code conch.health.readiness-leader=true}: readiness is
 * {@link ReadinessState#ACCEPTING_TRAFFIC} only while the application accepts traffic and this
 * instance leads the default office, so that readiness probes route to the leader alone
 * (active-passive).
 *
 * <p>Readiness is computed when it is read rather than published on each change: publishing would
 * race with Boot's own {@code ACCEPTING_TRAFFIC} when the application becomes ready, and a follower
 * could end up ready. Liveness is the application's, untouched.
 */
final class LeaderReadinessAvailability extends ApplicationAvailabilityBean
    implements SmartInitializingSingleton {

  private final Supplier<Elections> elections;

  LeaderReadinessAvailability(Supplier<Elections> elections) {
    this.elections = elections;
  }

  /** Fails startup when there is no default office for readiness to follow. */
  @Override
  public void afterSingletonsInstantiated() {
    if (this.elections.get().defaultOffice().isEmpty()) {
      throw new InvalidArgumentException(
          "conch.health.readiness-leader",
          "true",
          "a default office whose leadership readiness follows: set conch.office or"
              + " spring.application.name");
    }
  }

  @Override
  public <S extends AvailabilityState> @Nullable S getState(Class<S> stateType) {
    S state = super.getState(stateType);
    if (state == ReadinessState.ACCEPTING_TRAFFIC && !leads()) {
      return stateType.cast(ReadinessState.REFUSING_TRAFFIC);
    }
    return state;
  }

  private boolean leads() {
    Elections all = this.elections.get();
    return all.defaultOffice().flatMap(all::find).map(Election::isLeader).orElse(false);
  }
}
