package dev.conch.spring.boot.metrics;

import static dev.conch.spring.observation.ConchMeterDocumentation.BALANCE_MOVES;
import static dev.conch.spring.observation.ConchMeterDocumentation.CAMPAIGN;
import static dev.conch.spring.observation.ConchMeterDocumentation.EVENTS_DROPPED;
import static dev.conch.spring.observation.ConchMeterDocumentation.FAILOVER_BUDGET;
import static dev.conch.spring.observation.ConchMeterDocumentation.LEADER;
import static dev.conch.spring.observation.ConchMeterDocumentation.LEADERLESS;
import static dev.conch.spring.observation.ConchMeterDocumentation.LEADERLESS_OBSERVED;
import static dev.conch.spring.observation.ConchMeterDocumentation.RENEWAL_FAILURES;
import static dev.conch.spring.observation.ConchMeterDocumentation.TERM;
import static dev.conch.spring.observation.ConchMeterDocumentation.TERM_INTERRUPTED;
import static dev.conch.spring.observation.ConchMeterDocumentation.TRANSITIONS;

import dev.conch.Election;
import dev.conch.LossReason;
import dev.conch.Ticker;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.TimingBudget;
import dev.conch.spring.CampaigningEvent;
import dev.conch.spring.Elections;
import dev.conch.spring.LeaderObservedEvent;
import dev.conch.spring.LeadershipAcquiredEvent;
import dev.conch.spring.LeadershipEvent;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.OfficeMovedEvent;
import dev.conch.spring.observation.ConchKeyNames;
import dev.conch.spring.support.BoundRegistries;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.GenericApplicationListener;
import org.springframework.core.ResolvableType;

/**
 * The Micrometer meters of conch, a {@link MeterBinder} (Spring Boot binds every {@code
 * MeterBinder} bean to the application's registry), tagged {@code conch.office}: {@code
 * conch.leader} (1 while leading, else 0), {@code conch.transitions} (by {@code conch.kind}:
 * acquired, lost, resigned, transferred; losses by {@code conch.reason}), {@code conch.term} (how
 * long each term lasted), {@code conch.campaign} (from joining or campaigning again to leading),
 * {@code conch.term.interrupted} and {@code conch.events.dropped}. {@code conch.renewal.failures}
 * counts the failed renewals of the one lease every office shares, so it has no {@code
 * conch.office} tag; {@code conch.balance.moves} counts the offices this instance handed to another
 * member of its group, by {@code conch.group} and {@code conch.reason}. For alerts that need no
 * code, each office also has {@code conch.office.leaderless} and {@code
 * conch.office.leaderless.observed} (how long it has been, and was in all, without a leader as this
 * instance saw it: {@link Vacancy}) and, where its timing budget is known, {@code
 * conch.office.failover.budget} (its worst crash fail-over). {@link ConchMeterDocumentation}
 * documents them.
 *
 * <p>Transitions are counted from the leadership events the context publishes ({@link
 * CampaigningEvent}, {@link LeadershipAcquiredEvent}, {@link LeadershipLostEvent}, {@link
 * LeaderObservedEvent}, {@link OfficeMovedEvent}), the ones the application listens to; an office's
 * meters are registered with its first event, or when the application has started. It listens to
 * those events only, not to every event of the context.
 */
public class ConchMetrics implements MeterBinder, GenericApplicationListener {

  /** The value of the {@code conch.reason} tag of transitions that are no loss. */
  static final String NO_REASON = "none";

  private final Elections elections;

  private final @Nullable EtcdSession session;

  private final Function<String, Optional<TimingBudget>> budgets;

  private final Ticker ticker;

  private final BoundRegistries registries = new BoundRegistries();

  private final Map<String, OfficeMeters> offices = new ConcurrentHashMap<>();

  /**
   * Meters of {@code elections}, registered in each registry they are bound to.
   *
   * @param session the etcd session whose renewal failures are counted, or {@code null}
   */
  public ConchMetrics(Elections elections, @Nullable EtcdSession session) {
    this(elections, session, office -> Optional.empty(), Ticker.SYSTEM);
  }

  /**
   * Meters of {@code elections}, registered in each registry they are bound to.
   *
   * @param session the etcd session whose renewal failures are counted, or {@code null}
   * @param budgets the timing budget of an office, where it is known (an office campaigned for in
   *     etcd), for {@code conch.office.failover.budget}
   * @param ticker the monotonic clock that times terms, campaigns and vacancies
   */
  public ConchMetrics(
      Elections elections,
      @Nullable EtcdSession session,
      Function<String, Optional<TimingBudget>> budgets,
      Ticker ticker) {
    this.elections = elections;
    this.session = session;
    this.budgets = budgets;
    this.ticker = ticker;
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

  /** Only conch's own events: campaigns, terms, leaders seen, moves, the application's start. */
  @Override
  public boolean supportsEventType(ResolvableType eventType) {
    Class<?> type = eventType.toClass();
    return ApplicationStartedEvent.class.isAssignableFrom(type)
        || OfficeMovedEvent.class.isAssignableFrom(type)
        || CampaigningEvent.class.isAssignableFrom(type)
        || LeadershipAcquiredEvent.class.isAssignableFrom(type)
        || LeadershipLostEvent.class.isAssignableFrom(type)
        || LeaderObservedEvent.class.isAssignableFrom(type);
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ApplicationStartedEvent) {
      this.elections.all().forEach(election -> meters(election.office()));
    } else if (event instanceof OfficeMovedEvent moved) {
      moved(moved);
    } else if (event instanceof LeadershipEvent leadership) {
      OfficeMeters meters = meters(leadership.getOffice());
      if (meters != null) {
        meters.record(leadership);
      }
    }
  }

  /**
   * Tagged by group and reason, not by office: a group of many offices would make a counter per
   * office and reason that counts one or two moves each.
   */
  private void moved(OfficeMovedEvent event) {
    this.registries.increment(
        Counter.builder(BALANCE_MOVES.getName())
            .description(BALANCE_MOVES.getDescription())
            .tag(ConchKeyNames.GROUP.asString(), event.getGroup())
            .tag(
                ConchKeyNames.MOVE_REASON.asString(),
                event.getReason().name().toLowerCase(Locale.ROOT)),
        1);
  }

  private @Nullable OfficeMeters meters(String office) {
    Election election = this.elections.find(office).orElse(null);
    if (election == null) {
      return null;
    }
    return this.offices.computeIfAbsent(office, name -> new OfficeMeters(election));
  }

  /** The meters of one office, and when its current campaign, term and vacancy began. */
  private final class OfficeMeters {

    private final Election election;

    private final String office;

    private final Vacancy vacancy;

    // Written on the office's event thread only.
    private long campaignStart = -1;

    private long termStart = -1;

    OfficeMeters(Election election) {
      this.election = election;
      this.office = election.office();
      this.vacancy = new Vacancy(election, ConchMetrics.this.ticker);
      ConchMetrics.this.registries.forEach(this::registerIn);
    }

    /** The meters that read the election; registering one twice returns the first. */
    void registerIn(MeterRegistry registry) {
      Gauge.builder(LEADER.getName(), this.election, e -> e.isLeader() ? 1 : 0)
          .description(LEADER.getDescription())
          .tag(ConchKeyNames.OFFICE.asString(), this.office)
          .register(registry);
      FunctionCounter.builder(EVENTS_DROPPED.getName(), this.election, Election::droppedEvents)
          .description(EVENTS_DROPPED.getDescription())
          .tag(ConchKeyNames.OFFICE.asString(), this.office)
          .register(registry);
      // Registered before the first campaign ends, so that it reads 0 rather than nothing; and
      // terms begun from 0, so that Prometheus' increase() counts this instance's first one.
      campaign(registry);
      Counter.builder(TRANSITIONS.getName())
          .description(TRANSITIONS.getDescription())
          .tags(tags("acquired", NO_REASON))
          .register(registry);
      Gauge.builder(LEADERLESS.getName(), this.vacancy, Vacancy::seconds)
          .description(LEADERLESS.getDescription())
          .baseUnit(LEADERLESS.getBaseUnit())
          .tag(ConchKeyNames.OFFICE.asString(), this.office)
          .register(registry);
      FunctionCounter.builder(LEADERLESS_OBSERVED.getName(), this.vacancy, Vacancy::totalSeconds)
          .description(LEADERLESS_OBSERVED.getDescription())
          .baseUnit(LEADERLESS_OBSERVED.getBaseUnit())
          .tag(ConchKeyNames.OFFICE.asString(), this.office)
          .register(registry);
      // Unknown in standalone mode and for the application's own elections: no gauge rather
      // than a made-up figure, so that an alert comparing with it stays silent.
      if (ConchMetrics.this.budgets.apply(this.office).isPresent()) {
        Gauge.builder(FAILOVER_BUDGET.getName(), this::failoverSeconds)
            .description(FAILOVER_BUDGET.getDescription())
            .baseUnit(FAILOVER_BUDGET.getBaseUnit())
            .tag(ConchKeyNames.OFFICE.asString(), this.office)
            .register(registry);
      }
    }

    private double failoverSeconds() {
      return ConchMetrics.this
          .budgets
          .apply(this.office)
          .map(budget -> budget.crashFailover().toNanos() / 1e9)
          .orElse(Double.NaN);
    }

    void record(LeadershipEvent event) {
      if (event instanceof CampaigningEvent campaigning) {
        // A campaign goes on from the first since joining or since the last term: one left
        // before it won (the context stopped) ends with the next join.
        if (this.campaignStart < 0 || campaigning.isJoined()) {
          this.campaignStart = ConchMetrics.this.ticker.nanoTime();
        }
      } else if (event instanceof LeaderObservedEvent observed) {
        if (observed.isVacant()) {
          this.vacancy.began();
        } else {
          this.vacancy.ended();
        }
      } else if (event instanceof LeadershipAcquiredEvent) {
        this.vacancy.ended();
        long now = ConchMetrics.this.ticker.nanoTime();
        if (this.campaignStart >= 0) {
          Duration campaign = Duration.ofNanos(now - this.campaignStart);
          ConchMetrics.this.registries.forEach(registry -> campaign(registry).record(campaign));
          this.campaignStart = -1;
        }
        this.termStart = now;
        transition("acquired", NO_REASON);
      } else if (event instanceof LeadershipLostEvent lost) {
        for (String work : lost.getInterruptedWork()) {
          ConchMetrics.this.registries.increment(
              Counter.builder(TERM_INTERRUPTED.getName())
                  .description(TERM_INTERRUPTED.getDescription())
                  .tag(ConchKeyNames.OFFICE.asString(), this.office)
                  .tag(ConchKeyNames.WORK.asString(), work),
              1);
        }
        LossReason reason = lost.getReason();
        // Resigned (or shut down) is leaving: this instance will not see who leads next.
        if (reason == LossReason.RESIGNED) {
          this.vacancy.ended();
        } else {
          this.vacancy.began();
        }
        String kind =
            switch (reason) {
              case RESIGNED -> "resigned";
              case TRANSFERRED -> "transferred";
              default -> "lost";
            };
        String why = kind.equals("lost") ? reason.name().toLowerCase(Locale.ROOT) : NO_REASON;
        termEnded(kind, why);
        transition(kind, why);
      }
    }

    private Timer campaign(MeterRegistry registry) {
      return Timer.builder(CAMPAIGN.getName())
          .description(CAMPAIGN.getDescription())
          .tag(ConchKeyNames.OFFICE.asString(), this.office)
          .register(registry);
    }

    private void termEnded(String kind, String reason) {
      if (this.termStart < 0) {
        return;
      }
      Duration term = Duration.ofNanos(ConchMetrics.this.ticker.nanoTime() - this.termStart);
      this.termStart = -1;
      ConchMetrics.this.registries.forEach(
          registry ->
              Timer.builder(TERM.getName())
                  .description(TERM.getDescription())
                  .tags(tags(kind, reason))
                  .register(registry)
                  .record(term));
    }

    private void transition(String kind, String reason) {
      ConchMetrics.this.registries.increment(
          Counter.builder(TRANSITIONS.getName())
              .description(TRANSITIONS.getDescription())
              .tags(tags(kind, reason)),
          1);
    }

    private String[] tags(String kind, String reason) {
      return new String[] {
        ConchKeyNames.OFFICE.asString(), this.office,
        ConchKeyNames.KIND.asString(), kind,
        ConchKeyNames.REASON.asString(), reason
      };
    }
  }
}
