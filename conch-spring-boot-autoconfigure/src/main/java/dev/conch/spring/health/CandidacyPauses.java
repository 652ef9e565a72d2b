package dev.conch.spring.health;

import dev.conch.Gate;
import dev.conch.InvalidArgumentException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Which offices this instance campaigns for only while health indicators are UP ({@code
 * conch.health.require}, {@code conch.offices.<name>.require-health}), and whether their candidacy
 * is paused now: the {@link Gate} of each such office denies a campaign while it is. The {@link
 * HealthGatedCandidacy} decides the pauses; this holds them without depending on any health bean,
 * so that the elections can be built before the health contributors (one of which reads them).
 *
 * <p>Infrastructure of the starter, created by its auto-configuration; the endpoint reads {@link
 * #pause(String)}.
 */
public final class CandidacyPauses implements SmartInitializingSingleton {

  /** Default quarantine: 10 s, about one lease TTL, see {@code conch.health.quarantine}. */
  public static final Duration DEFAULT_QUARANTINE = Duration.ofSeconds(10);

  /** How long a gate waits for the first health check before it denies. */
  private static final Duration FIRST_CHECK_WAIT = Duration.ofSeconds(10);

  private final Map<String, Requirement> requirements;

  private final @Nullable Requirement others;

  private final Map<String, Pause> pauses = new ConcurrentHashMap<>();

  private final Set<String> gated = ConcurrentHashMap.newKeySet();

  private final CountDownLatch checked = new CountDownLatch(1);

  private volatile boolean watched;

  /**
   * @param requirements by office: what each office named in configuration requires (no indicators:
   *     nothing)
   * @param others what every other office requires (those only {@code @OnLeadership} methods name),
   *     or {@code null} for nothing
   * @throws InvalidArgumentException when a quarantine is negative
   */
  public CandidacyPauses(Map<String, Requirement> requirements, @Nullable Requirement others) {
    List<Requirement> all = new ArrayList<>(requirements.values());
    if (others != null) {
      all.add(others);
    }
    for (Requirement requirement : all) {
      if (requirement.quarantine().isNegative()) {
        throw new InvalidArgumentException(
            requirement.quarantineProperty(),
            requirement.quarantine(),
            "a duration of zero or more, e.g. 10s");
      }
    }
    this.requirements = Map.copyOf(requirements);
    this.others = others;
  }

  /** What {@code office} requires, when it requires anything. */
  public Optional<Requirement> requirement(String office) {
    Requirement own = this.requirements.get(office);
    Requirement applies = (own != null) ? own : this.others;
    return (applies != null && !applies.indicators().isEmpty())
        ? Optional.of(applies)
        : Optional.empty();
  }

  /** Every requirement configured, whether or not an office requires anything. */
  public List<Requirement> requirements() {
    List<Requirement> all = new ArrayList<>(this.requirements.values());
    if (this.others != null) {
      all.add(this.others);
    }
    return all;
  }

  /** Why the candidacy for {@code office} is paused, and until when; empty while it is not. */
  public Optional<Pause> pause(String office) {
    return Optional.ofNullable(this.pauses.get(office));
  }

  /**
   * The gate of {@code office}: it denies while the office's candidacy is paused; before the first
   * health check it waits for it (briefly), so that an instance that starts unhealthy never
   * campaigns. {@link Gate#OPEN} for an office that requires nothing.
   */
  public Gate gate(String office) {
    if (requirement(office).isEmpty()) {
      return Gate.OPEN;
    }
    this.gated.add(office);
    return name -> {
      try {
        if (!this.checked.await(FIRST_CHECK_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          return Gate.Decision.deny("health not checked yet");
        }
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return Gate.Decision.deny("interrupted before the first health check");
      }
      Pause pause = this.pauses.get(name);
      return (pause != null) ? Gate.Decision.deny(pause.describe()) : Gate.Decision.allow();
    };
  }

  /**
   * Whether the election of {@code office} asks its gate: conch made it. The application's own
   * {@code Election} beans do not, and are left alone.
   */
  boolean isGated(String office) {
    return this.gated.contains(office);
  }

  void watchedBy(HealthGatedCandidacy watcher) {
    this.watched = true;
  }

  void paused(String office, Pause pause) {
    this.pauses.put(office, pause);
  }

  void resumed(String office) {
    this.pauses.remove(office);
  }

  /** The first health check is done: the gates answer from now on. */
  void checked() {
    this.checked.countDown();
  }

  /** Fails startup when offices require health but nothing checks it. */
  @Override
  public void afterSingletonsInstantiated() {
    if (this.watched) {
      return;
    }
    for (Requirement requirement : requirements()) {
      if (!requirement.indicators().isEmpty()) {
        throw new InvalidArgumentException(
            requirement.property(),
            String.join(",", requirement.indicators()),
            "no health contributor or group without Spring Boot's health support: add"
                + " spring-boot-starter-actuator (spring-boot-health and spring-boot-actuator),"
                + " or remove the property");
      }
    }
  }

  /**
   * What one office requires.
   *
   * @param indicators health contributors or groups, each to be UP
   * @param quarantine how long a leader that resigned as unhealthy stays out
   * @param property the property the indicators came from, for error messages
   * @param quarantineProperty the property the quarantine came from
   */
  public record Requirement(
      List<String> indicators, Duration quarantine, String property, String quarantineProperty) {

    /** Copies the indicators. */
    public Requirement {
      indicators = List.copyOf(indicators);
      Objects.requireNonNull(quarantine, "quarantine");
    }
  }

  /**
   * A paused candidacy.
   *
   * @param indicator the required contributor or group that caused the pause
   * @param reason what is wrong, e.g. {@code db is DOWN}
   * @param healthy whether the indicators are UP again (the pause lasts for the quarantine)
   * @param until the end of the quarantine, or {@code null} when none applies (it lasts while the
   *     indicator is not UP)
   */
  public record Pause(String indicator, String reason, boolean healthy, @Nullable Instant until) {

    /** What the gate answers and the endpoint shows. */
    public String describe() {
      if (until == null) {
        return reason;
      }
      return healthy
          ? "quarantined until " + until + " (paused as " + reason + ")"
          : reason + "; quarantined until " + until;
    }
  }
}
