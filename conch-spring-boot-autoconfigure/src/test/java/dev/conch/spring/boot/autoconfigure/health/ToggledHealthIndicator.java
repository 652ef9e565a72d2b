package dev.conch.spring.boot.autoconfigure.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/** A health indicator a test turns DOWN and UP, as a user's own would follow its database. */
public final class ToggledHealthIndicator implements HealthIndicator {

  private volatile Status status = Status.UP;

  public void down() {
    this.status = Status.DOWN;
  }

  public void up() {
    this.status = Status.UP;
  }

  @Override
  public Health health() {
    return Health.status(this.status).build();
  }
}
