package dev.conch.spring.boot.metrics;

import static dev.conch.spring.boot.metrics.ConchMeterDocumentation.BALANCE_MOVES;
import static dev.conch.spring.boot.metrics.ConchMeterDocumentation.CAMPAIGN;
import static dev.conch.spring.boot.metrics.ConchMeterDocumentation.EVENTS_DROPPED;
import static dev.conch.spring.boot.metrics.ConchMeterDocumentation.LEADER;
import static dev.conch.spring.boot.metrics.ConchMeterDocumentation.RENEWAL_FAILURES;
import static dev.conch.spring.boot.metrics.ConchMeterDocumentation.TERM;
import static dev.conch.spring.boot.metrics.ConchMeterDocumentation.TERM_INTERRUPTED;
import static dev.conch.spring.boot.metrics.ConchMeterDocumentation.TRANSITIONS;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.etcd.EtcdSession;
import dev.conch.spring.Elections;
import dev.conch.spring.OfficeMovedEvent;
import dev.conch.spring.boot.metrics.ConchMeterDocumentation.KeyNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.event.GenericApplicationListener;
import org.springframework.core.ResolvableType;

/**
 * The Micrometer meters of conch, a {@link MeterBinder} (Spring Boot binds every {@code
 * MeterBinder} bean to the application's registry), tagged {@code office}: {@code conch.leader} (1
 * while leading, else 0), {@code conch.transitions} (by {@code kind}: acquired, lost, resigned,
 * transferred; losses by {@code reason}), {@code conch.term} (how long each term lasted), {@code
 * conch.campaign} (from joining or campaigning again to leading) and {@code conch.events.dropped}.
 * {@code conch.renewal.failures} counts the failed renewals of the one lease every office shares,
 * so it has no {@code office} tag; {@code conch.balance.moves} counts the offices this instance
 * handed to another member of its group, by {@code group} and {@code reason}. {@link
 * ConchMeterDocumentation} documents them.
 *
 * <p>Transitions are counted from the election events the context publishes; an office's meters are
 * registered with its first event, or when the application has started. It listens to those events
 * only, not to every event of the context.
 */
public class ConchMetrics implements MeterBinder, GenericApplicationListener {

  /** The value of the {@code reason} tag of transitions that are no loss. */
  static final String NO_REASON = "none";

  private final Elections elections;

  private final @Nullable EtcdSession session;

  private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

  private final Map<String, OfficeMeters> offices = new ConcurrentHashMap<>();

  /**
   * Meters of {@code elections}, registered in each registry they are bound to.
   *
   * @param session the etcd session whose renewal failures are counted, or {@code null}
   */
  public ConchMetrics(Elections elections, @Nullable EtcdSession session) {
    this.elections = elections;
    this.session = session;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    this.registries.add(registry);
    if (this.session != null) {
      FunctionCounter.builder(
              RENEWAL_FAILURES.getName(), this.session, EtcdSession::renewalFailures)
          .description(RENEWAL_FAILURES.getDescription())
          .register(registry);
    }
    this.offices.values().forEach(meters -> meters.registerIn(registry));
  }

  /** Only conch's own events: the election events, the moves, and the application's start. */
  @Override
  public boolean supportsEventType(ResolvableType eventType) {
    if (ApplicationStartedEvent.class.isAssignableFrom(eventType.toClass())
        || OfficeMovedEvent.class.isAssignableFrom(eventType.toClass())) {
      return true;
    }
    ResolvableType payload = eventType.as(PayloadApplicationEvent.class).getGeneric();
    return ElectionEvent.class.isAssignableFrom(payload.toClass());
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ApplicationStartedEvent) {
      this.elections.all().forEach(election -> meters(election.office()));
    } else if (event instanceof OfficeMovedEvent moved) {
      moved(moved);
    } else if (event instanceof PayloadApplicationEvent<?> payload
        && payload.getPayload() instanceof ElectionEvent electionEvent) {
      OfficeMeters meters = meters(electionEvent.office());
      if (meters != null) {
        meters.record(electionEvent);
      }
    }
  }

  /**
   * Tagged by group and reason, not by office: a group of many offices would make a counter per
   * office and reason that counts one or two moves each.
   */
  private void moved(OfficeMovedEvent event) {
    String reason = event.getReason().name().toLowerCase(Locale.ROOT);
    for (MeterRegistry registry : this.registries) {
      Counter.builder(BALANCE_MOVES.getName())
          .description(BALANCE_MOVES.getDescription())
          .tag(KeyNames.GROUP.asString(), event.getGroup())
          .tag(KeyNames.MOVE_REASON.asString(), reason)
          .register(registry)
          .increment();
    }
  }

  private @Nullable OfficeMeters meters(String office) {
    Election election = this.elections.find(office).orElse(null);
    if (election == null) {
      return null;
    }
    return this.offices.computeIfAbsent(office, name -> new OfficeMeters(election));
  }

  /** The meters of one office, and when its current campaign and term began. */
  private final class OfficeMeters {

    private final Election election;

    private final String office;

    // Written on the office's event thread only.
    private long campaignStart = -1;

    private long termStart = -1;

    OfficeMeters(Election election) {
      this.election = election;
      this.office = election.office();
      ConchMetrics.this.registries.forEach(this::registerIn);
    }

    /** The meters that read the election; registering one twice returns the first. */
    void registerIn(MeterRegistry registry) {
      Gauge.builder(LEADER.getName(), this.election, e -> e.isLeader() ? 1 : 0)
          .description(LEADER.getDescription())
          .tag(KeyNames.OFFICE.asString(), this.office)
          .register(registry);
      FunctionCounter.builder(EVENTS_DROPPED.getName(), this.election, Election::droppedEvents)
          .description(EVENTS_DROPPED.getDescription())
          .tag(KeyNames.OFFICE.asString(), this.office)
          .register(registry);
      // Registered before the first campaign ends, so that it reads 0 rather than nothing.
      campaign(registry);
    }

    void record(ElectionEvent event) {
      if (event instanceof ElectionEvent.Joined || event instanceof ElectionEvent.Campaigning) {
        if (this.campaignStart < 0) {
          this.campaignStart = System.nanoTime();
        }
      } else if (event instanceof ElectionEvent.Leading) {
        long now = System.nanoTime();
        if (this.campaignStart >= 0) {
          Duration campaign = Duration.ofNanos(now - this.campaignStart);
          ConchMetrics.this.registries.forEach(registry -> campaign(registry).record(campaign));
          this.campaignStart = -1;
        }
        this.termStart = now;
        transition("acquired", NO_REASON);
      } else if (event instanceof ElectionEvent.Lost lost) {
        String reason = lost.reason().name().toLowerCase(Locale.ROOT);
        termEnded("lost", reason);
        transition("lost", reason);
      } else if (event instanceof ElectionEvent.WorkInterrupted interrupted) {
        for (String work : interrupted.work()) {
          for (MeterRegistry registry : ConchMetrics.this.registries) {
            Counter.builder(TERM_INTERRUPTED.getName())
                .description(TERM_INTERRUPTED.getDescription())
                .tag(KeyNames.OFFICE.asString(), this.office)
                .tag(KeyNames.WORK.asString(), work)
                .register(registry)
                .increment();
          }
        }
      } else if (event instanceof ElectionEvent.Transferred) {
        termEnded("transferred", NO_REASON);
        transition("transferred", NO_REASON);
      } else if (event instanceof ElectionEvent.Resigned resigned) {
        // A campaign left before it won is no transition, and no campaign to time.
        this.campaignStart = -1;
        if (resigned.token() > 0) {
          termEnded("resigned", NO_REASON);
          transition("resigned", NO_REASON);
        }
      }
    }

    private Timer campaign(MeterRegistry registry) {
      return Timer.builder(CAMPAIGN.getName())
          .description(CAMPAIGN.getDescription())
          .tag(KeyNames.OFFICE.asString(), this.office)
          .register(registry);
    }

    private void termEnded(String kind, String reason) {
      if (this.termStart < 0) {
        return;
      }
      Duration term = Duration.ofNanos(System.nanoTime() - this.termStart);
      this.termStart = -1;
      for (MeterRegistry registry : ConchMetrics.this.registries) {
        Timer.builder(TERM.getName())
            .description(TERM.getDescription())
            .tags(tags(kind, reason))
            .register(registry)
            .record(term);
      }
    }

    private void transition(String kind, String reason) {
      for (MeterRegistry registry : ConchMetrics.this.registries) {
        Counter.builder(TRANSITIONS.getName())
            .description(TRANSITIONS.getDescription())
            .tags(tags(kind, reason))
            .register(registry)
            .increment();
      }
    }

    private String[] tags(String kind, String reason) {
      return new String[] {
        KeyNames.OFFICE.asString(), this.office,
        KeyNames.KIND.asString(), kind,
        KeyNames.REASON.asString(), reason
      };
    }
  }
}
