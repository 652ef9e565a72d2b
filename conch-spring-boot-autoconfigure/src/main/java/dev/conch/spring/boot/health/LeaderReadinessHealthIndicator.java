package dev.conch.spring.boot.health;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.Elections;
import java.util.Optional;
import java.util.OptionalLong;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@link HealthIndicator} {@code conchLeader}: {@code UP} while this instance leads the default
 * office, {@code OUT_OF_SERVICE} while it does not (it follows, campaigns, or its term ended).
 *
 * <p>{@code conch.health.readiness-leader=true} contributes it and adds it to the {@code readiness}
 * health group, beside Boot's own {@code readinessState}: an instance is then ready only while the
 * application accepts traffic and it leads. It reads the election's state and nothing else, so a
 * probe never waits for etcd: {@link State#LEADING} comes after every acquire hook succeeded and
 * ends as soon as the term does, before any lose hook runs.
 */
public class LeaderReadinessHealthIndicator implements HealthIndicator {

  private final Elections elections;

  /** An indicator of the default office of {@code elections}. */
  public LeaderReadinessHealthIndicator(Elections elections) {
    this.elections = elections;
  }

  @Override
  public Health health() {
    Optional<String> office = this.elections.defaultOffice();
    Optional<Election> election = office.flatMap(this.elections::find);
    if (election.isEmpty()) {
      // Refused at start-up: only an application that closed its election gets here.
      return Health.outOfService().withDetail("office", office.orElse("(none)")).build();
    }
    State state = election.get().state();
    Health.Builder builder = (state == State.LEADING) ? Health.up() : Health.outOfService();
    builder.withDetail("office", election.get().office()).withDetail("state", state);
    OptionalLong token = election.get().token();
    if (state == State.LEADING && token.isPresent()) {
      builder.withDetail("token", token.getAsLong());
    }
    return builder.build();
  }
}
