package dev.conch.spring.boot.health;

import dev.conch.Election;
import dev.conch.EtcdUnavailableException;
import dev.conch.Holder;
import dev.conch.State;
import dev.conch.etcd.EtcdSession;
import dev.conch.spring.Elections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@link HealthIndicator} {@code conch}: whether this instance can take part in its elections.
 *
 * <p>{@code UP} while etcd answers and the session's lease is alive, or nothing campaigns yet;
 * {@code DOWN} when etcd does not answer a read of the leader in time, or when the lease passed its
 * deadline (the session was lost). Following is healthy: an instance is never {@code DOWN} merely
 * because another one leads. Details, per office: the state of this instance's candidate, the
 * leader's id as etcd has it, and the token while this instance leads.
 */
public class ConchHealthIndicator extends AbstractHealthIndicator {

  private final Elections elections;

  private final @Nullable EtcdSession session;

  /**
   * An indicator of {@code elections}.
   *
   * @param session the etcd session whose lease is checked, or {@code null} without etcd
   */
  public ConchHealthIndicator(Elections elections, @Nullable EtcdSession session) {
    super("conch health check failed");
    this.elections = elections;
    this.session = session;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    builder.up();
    boolean campaigning = false;
    boolean readable = true;
    Map<String, Map<String, Object>> offices = new LinkedHashMap<>();
    for (Election election : this.elections.all()) {
      State state = election.state();
      campaigning |= isCampaigning(state);
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("state", state);
      if (readable) {
        try {
          Optional<Holder> leader = election.leader();
          details.put("leader", leader.map(ConchHealthIndicator::idOf).orElse(null));
        } catch (EtcdUnavailableException ex) {
          // One read is enough to know: the others would each wait for the same timeout.
          readable = false;
          builder.down().withDetail("error", "etcd unavailable: " + ex.getMessage());
        }
      }
      OptionalLong token = election.token();
      if (token.isPresent()) {
        details.put("token", token.getAsLong());
      }
      details.values().removeIf(value -> value == null);
      offices.put(election.office(), details);
    }
    if (this.session != null) {
      long lease = this.session.leaseId();
      if (lease != 0) {
        builder.withDetail("lease", Long.toHexString(lease));
      }
      // A lease that exists but is no longer alive: renewal failed past its deadline, or etcd
      // says it is gone. Without a lease yet, the read above tells whether etcd answers.
      if (campaigning && lease != 0 && !this.session.isAlive()) {
        builder
            .down()
            .withDetail(
                "session",
                "lease " + Long.toHexString(lease) + " lost: " + this.session.lastError());
      }
    }
    builder.withDetail("offices", offices);
  }

  private static boolean isCampaigning(State state) {
    return switch (state) {
      case CAMPAIGNING, LEADING, FOLLOWING, LOST, TRANSFERRED -> true;
      case JOINED, RESIGNED, DENIED, CLOSED -> false;
    };
  }

  private static String idOf(Holder holder) {
    String id = holder.id();
    return (holder.isConch() && id != null) ? id : "(" + holder.raw() + ")";
  }
}
