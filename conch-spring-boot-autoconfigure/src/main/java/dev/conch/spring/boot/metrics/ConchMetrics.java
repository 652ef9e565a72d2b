package dev.conch.spring.boot.metrics;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.etcd.EtcdSession;
import dev.conch.spring.Elections;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.event.GenericApplicationListener;
import org.springframework.core.ResolvableType;

/**
 * Micrometer meters of conch, tagged {@code office}: {@code conch.leader} (1 while leading, else
 * 0), {@code conch.transitions} (by {@code kind}: acquired, lost, resigned, transferred; losses by
 * {@code reason}), {@code conch.campaign} (from joining or campaigning again to leading) and {@code
 * conch.events.dropped} (a counter of the events the bounded buffer dropped). {@code
 * conch.renewal.failures} counts the failed renewals of the one lease every office shares, so it
 * has no {@code office} tag.
 *
 * <p>Transitions are counted from the election events the context publishes; an office's meters are
 * registered with its first event, or when the application has started. It listens to those events
 * only, not to every event of the context.
 */
public class ConchMetrics implements GenericApplicationListener {

  /** The value of the {@code reason} tag of transitions that are no loss. */
  static final String NO_REASON = "none";

  private final MeterRegistry registry;

  private final Elections elections;

  private final Map<String, OfficeMeters> offices = new ConcurrentHashMap<>();

  /**
   * Meters of {@code elections} in {@code registry}.
   *
   * @param session the etcd session whose renewal failures are counted, or {@code null}
   */
  public ConchMetrics(MeterRegistry registry, Elections elections, @Nullable EtcdSession session) {
    this.registry = registry;
    this.elections = elections;
    if (session != null) {
      FunctionCounter.builder("conch.renewal.failures", session, EtcdSession::renewalFailures)
          .description("Failed renewals of the lease shared by every office")
          .register(registry);
    }
  }

  /** Only conch's own events: the election events, and the application's start. */
  @Override
  public boolean supportsEventType(ResolvableType eventType) {
    if (ApplicationStartedEvent.class.isAssignableFrom(eventType.toClass())) {
      return true;
    }
    ResolvableType payload = eventType.as(PayloadApplicationEvent.class).getGeneric();
    return ElectionEvent.class.isAssignableFrom(payload.toClass());
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ApplicationStartedEvent) {
      this.elections.all().forEach(election -> meters(election.office()));
    } else if (event instanceof PayloadApplicationEvent<?> payload
        && payload.getPayload() instanceof ElectionEvent electionEvent) {
      OfficeMeters meters = meters(electionEvent.office());
      if (meters != null) {
        meters.record(electionEvent);
      }
    }
  }

  private @Nullable OfficeMeters meters(String office) {
    Election election = this.elections.find(office).orElse(null);
    if (election == null) {
      return null;
    }
    return this.offices.computeIfAbsent(office, name -> new OfficeMeters(election));
  }

  /** The meters of one office, and when its current campaign began. */
  private final class OfficeMeters {

    private final String office;

    private final Timer campaign;

    // Written on the office's event thread only.
    private long campaignStart = -1;

    OfficeMeters(Election election) {
      this.office = election.office();
      Gauge.builder("conch.leader", election, e -> e.isLeader() ? 1 : 0)
          .description("Whether this instance leads the office (1) or not (0)")
          .tag("office", this.office)
          .register(ConchMetrics.this.registry);
      FunctionCounter.builder("conch.events.dropped", election, Election::droppedEvents)
          .description("Election events dropped because listeners fell behind")
          .tag("office", this.office)
          .register(ConchMetrics.this.registry);
      this.campaign =
          Timer.builder("conch.campaign")
              .description("Time from joining, or campaigning again, to leading")
              .tag("office", this.office)
              .register(ConchMetrics.this.registry);
    }

    void record(ElectionEvent event) {
      if (event instanceof ElectionEvent.Joined || event instanceof ElectionEvent.Campaigning) {
        if (this.campaignStart < 0) {
          this.campaignStart = System.nanoTime();
        }
      } else if (event instanceof ElectionEvent.Leading) {
        if (this.campaignStart >= 0) {
          this.campaign.record(Duration.ofNanos(System.nanoTime() - this.campaignStart));
          this.campaignStart = -1;
        }
        transition("acquired", NO_REASON);
      } else if (event instanceof ElectionEvent.Lost lost) {
        transition("lost", lost.reason().name().toLowerCase(Locale.ROOT));
      } else if (event instanceof ElectionEvent.Transferred) {
        transition("transferred", NO_REASON);
      } else if (event instanceof ElectionEvent.Resigned resigned) {
        // A campaign left before it won is no transition, and no campaign to time.
        this.campaignStart = -1;
        if (resigned.token() > 0) {
          transition("resigned", NO_REASON);
        }
      }
    }

    private void transition(String kind, String reason) {
      Counter.builder("conch.transitions")
          .description("Changes of this instance's leadership, by kind and, for losses, reason")
          .tags("office", this.office, "kind", kind, "reason", reason)
          .register(ConchMetrics.this.registry)
          .increment();
    }
  }
}
