package dev.conch.spring.boot.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;

/**
 * Configuration properties for conch: which offices this instance campaigns for, how it holds its
 * lease in etcd, and how long its hooks may take.
 *
 * <p>Why one file of over 400 lines: as Boot's own properties classes ({@code ServerProperties}),
 * the {@code conch.*} tree is one class with its groups nested ({@code etcd}, {@code health},
 * {@code offices.<name>}, ...), so that the generated metadata and the binder read one tree; it is
 * fields, their documentation and accessors, with no logic.
 */
@ConfigurationProperties("conch")
public class ConchProperties {

  /** Whether to enable conch's auto-configuration. */
  private boolean enabled = true;

  /** Whether to elect in memory, without etcd: this instance always leads (local runs only). */
  private boolean standalone;

  /** Office this instance campaigns for; defaults to spring.application.name. */
  private @Nullable String office;

  /**
   * Lease TTL shared by every office of this instance: whole seconds, at least 2s. Defaults to 10s,
   * or to 15s when conch.runner.command is set: the runner's kill-after (5s) would leave too little
   * of 10s to ride out an etcd raft leader change.
   */
  @DurationUnit(ChronoUnit.SECONDS)
  private @Nullable Duration ttl;

  /**
   * Longest interval between lease renewals; defaults to a third of the TTL. Renewals come more
   * often when the stop timeout leaves less room: every (TTL - stop timeout - margin) / 4.
   */
  private @Nullable Duration renewInterval;

  /** How long each @OnLeadership method may run. */
  private Duration hookTimeout = Duration.ofSeconds(30);

  /** Time needed to stop a leader's work; leadership is dropped this much before the lease ends. */
  private Duration stopTimeout = Duration.ofSeconds(1);

  /** Time kept free before the lease deadline for scheduling delays and clock drift. */
  private Duration safetyMargin = Duration.ofMillis(500);

  /** How many election events may wait for slow listeners before new ones are dropped. */
  private int eventBuffer = 16;

  /**
   * How many terms of each office's history are kept in etcd (who led, when, how each term ended):
   * 0 (none written) to 1000.
   */
  private int historyTerms = 100;

  /** Replaced by conch.health.require, which wins where both are set. */
  private @Nullable List<String> requireHealth;

  /** Replaced by conch.health.quarantine, which wins where both are set. */
  private @Nullable Duration quarantine;

  /** Per-office overrides, by office name; each office named here gets an Election bean. */
  private final Map<String, Office> offices = new LinkedHashMap<>();

  private final Candidate candidate = new Candidate();

  private final Retry retry = new Retry();

  private final Balance balance = new Balance();

  private final Etcd etcd = new Etcd();

  private final Health health = new Health();

  public boolean isEnabled() {
    return this.enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isStandalone() {
    return this.standalone;
  }

  public void setStandalone(boolean standalone) {
    this.standalone = standalone;
  }

  public @Nullable String getOffice() {
    return this.office;
  }

  public void setOffice(@Nullable String office) {
    this.office = office;
  }

  public @Nullable Duration getTtl() {
    return this.ttl;
  }

  public void setTtl(@Nullable Duration ttl) {
    this.ttl = ttl;
  }

  public int getHistoryTerms() {
    return this.historyTerms;
  }

  public void setHistoryTerms(int historyTerms) {
    this.historyTerms = historyTerms;
  }

  public @Nullable Duration getRenewInterval() {
    return this.renewInterval;
  }

  public void setRenewInterval(@Nullable Duration renewInterval) {
    this.renewInterval = renewInterval;
  }

  public Duration getHookTimeout() {
    return this.hookTimeout;
  }

  public void setHookTimeout(Duration hookTimeout) {
    this.hookTimeout = hookTimeout;
  }

  public Duration getStopTimeout() {
    return this.stopTimeout;
  }

  public void setStopTimeout(Duration stopTimeout) {
    this.stopTimeout = stopTimeout;
  }

  public Duration getSafetyMargin() {
    return this.safetyMargin;
  }

  public void setSafetyMargin(Duration safetyMargin) {
    this.safetyMargin = safetyMargin;
  }

  public int getEventBuffer() {
    return this.eventBuffer;
  }

  public void setEventBuffer(int eventBuffer) {
    this.eventBuffer = eventBuffer;
  }

  /**
   * The deprecated {@code conch.require-health}, bound so that it keeps working.
   *
   * @deprecated use {@link Health#getRequire()} ({@code conch.health.require})
   */
  @Deprecated
  public @Nullable List<String> getRequireHealth() {
    return this.requireHealth;
  }

  /**
   * Sets the deprecated {@code conch.require-health}.
   *
   * @deprecated use {@link Health#setRequire(List)} ({@code conch.health.require})
   */
  @Deprecated
  public void setRequireHealth(@Nullable List<String> requireHealth) {
    this.requireHealth = requireHealth;
  }

  /**
   * The deprecated {@code conch.quarantine}, bound so that it keeps working.
   *
   * @deprecated use {@link Health#getQuarantine()} ({@code conch.health.quarantine})
   */
  @Deprecated
  public @Nullable Duration getQuarantine() {
    return this.quarantine;
  }

  /**
   * Sets the deprecated {@code conch.quarantine}.
   *
   * @deprecated use {@link Health#setQuarantine(Duration)} ({@code conch.health.quarantine})
   */
  @Deprecated
  public void setQuarantine(@Nullable Duration quarantine) {
    this.quarantine = quarantine;
  }

  public Map<String, Office> getOffices() {
    return this.offices;
  }

  public Candidate getCandidate() {
    return this.candidate;
  }

  public Retry getRetry() {
    return this.retry;
  }

  public Balance getBalance() {
    return this.balance;
  }

  public Etcd getEtcd() {
    return this.etcd;
  }

  public Health getHealth() {
    return this.health;
  }

  /** Overrides for one office; what is not set here comes from the conch.* defaults. */
  public static class Office {

    /** How long each @OnLeadership method of this office may run. */
    private @Nullable Duration hookTimeout;

    /** How long this instance needs to stop the work of this office on loss. */
    private @Nullable Duration stopTimeout;

    /** Time kept free before the lease deadline for this office. */
    private @Nullable Duration safetyMargin;

    /** Names of Lifecycle beans started while this instance leads this office, stopped on loss. */
    private List<String> lifecycleBeans = new ArrayList<>();

    /**
     * Health contributors or groups that must be UP for this instance to campaign for this office;
     * defaults to conch.health.require.
     */
    private @Nullable List<String> requireHealth;

    /**
     * How long a leader that resigned this office as unhealthy stays out of its election; defaults
     * to conch.health.quarantine.
     */
    private @Nullable Duration quarantine;

    public @Nullable Duration getHookTimeout() {
      return this.hookTimeout;
    }

    public void setHookTimeout(@Nullable Duration hookTimeout) {
      this.hookTimeout = hookTimeout;
    }

    public @Nullable Duration getStopTimeout() {
      return this.stopTimeout;
    }

    public void setStopTimeout(@Nullable Duration stopTimeout) {
      this.stopTimeout = stopTimeout;
    }

    public @Nullable Duration getSafetyMargin() {
      return this.safetyMargin;
    }

    public void setSafetyMargin(@Nullable Duration safetyMargin) {
      this.safetyMargin = safetyMargin;
    }

    public List<String> getLifecycleBeans() {
      return this.lifecycleBeans;
    }

    public void setLifecycleBeans(List<String> lifecycleBeans) {
      this.lifecycleBeans = lifecycleBeans;
    }

    public @Nullable List<String> getRequireHealth() {
      return this.requireHealth;
    }

    public void setRequireHealth(@Nullable List<String> requireHealth) {
      this.requireHealth = requireHealth;
    }

    public @Nullable Duration getQuarantine() {
      return this.quarantine;
    }

    public void setQuarantine(@Nullable Duration quarantine) {
      this.quarantine = quarantine;
    }
  }

  /**
   * The health this instance's candidacy requires ({@code spring-boot-health}), and readiness that
   * follows leadership.
   */
  public static class Health {

    /**
     * Health contributors (as /actuator/health names them, e.g. db or db/primary) or health groups
     * (e.g. readiness) that must be UP for this instance to campaign for any office.
     */
    private List<String> require = new ArrayList<>();

    /**
     * How long a leader that resigned an office as unhealthy stays out of its election, even when
     * UP again; zero or more. Defaults to 10s.
     */
    private @Nullable Duration quarantine;

    /**
     * Whether readiness follows leadership: ready only while this instance leads the default
     * office. Contributes the health indicator conchLeader (needs spring-boot-health) to the
     * readiness group.
     */
    private boolean readinessLeader;

    /** How often the required health contributors and groups are checked. */
    private Duration interval = Duration.ofSeconds(1);

    /** How long a check of the required health may take before it counts as not UP. */
    private Duration timeout = Duration.ofSeconds(5);

    public List<String> getRequire() {
      return this.require;
    }

    public void setRequire(List<String> require) {
      this.require = require;
    }

    public @Nullable Duration getQuarantine() {
      return this.quarantine;
    }

    public void setQuarantine(@Nullable Duration quarantine) {
      this.quarantine = quarantine;
    }

    public boolean isReadinessLeader() {
      return this.readinessLeader;
    }

    public void setReadinessLeader(boolean readinessLeader) {
      this.readinessLeader = readinessLeader;
    }

    public Duration getInterval() {
      return this.interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public Duration getTimeout() {
      return this.timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }
  }

  /** Who this instance is in every office. */
  public static class Candidate {

    /** Candidate id stored in the holder value, unique per instance; defaults to host:pid. */
    private @Nullable String id;

    /**
     * Priority of this instance in every office it shares with its group: a leader hands an office
     * to a live candidate of higher priority (after the minimum tenure); equal priorities never
     * move.
     */
    private int priority;

    /**
     * How long a term lasts at least before it is handed to a candidate of higher priority, against
     * flapping (15s).
     */
    private @Nullable Duration minTenure;

    public @Nullable String getId() {
      return this.id;
    }

    public void setId(@Nullable String id) {
      this.id = id;
    }

    public int getPriority() {
      return this.priority;
    }

    public void setPriority(int priority) {
      this.priority = priority;
    }

    public @Nullable Duration getMinTenure() {
      return this.minTenure;
    }

    public void setMinTenure(@Nullable Duration minTenure) {
      this.minTenure = minTenure;
    }
  }

  /**
   * How the instances that campaign for the same offices share them: each leads at most its fair
   * share, ⌈offices / live instances⌉ (etcd only; there is no group in standalone mode).
   */
  public static class Balance {

    /** Whether to share the offices of this application fairly with the other instances. */
    private boolean enabled = true;

    /**
     * Name of the group of instances that share their offices, a valid office name; defaults to
     * spring.application.name, else "conch".
     */
    private @Nullable String group;

    /**
     * How long a change of the group's members must be quiet before an office moves, so that a
     * rolling restart moves each office once (5s).
     */
    private @Nullable Duration delay;

    public boolean isEnabled() {
      return this.enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public @Nullable String getGroup() {
      return this.group;
    }

    public void setGroup(@Nullable String group) {
      this.group = group;
    }

    public @Nullable Duration getDelay() {
      return this.delay;
    }

    public void setDelay(@Nullable Duration delay) {
      this.delay = delay;
    }
  }

  /** Back-off between campaigns after a failure or a loss. */
  public static class Retry {

    /** First delay before campaigning again. */
    private Duration initial = Duration.ofMillis(250);

    /** Longest delay before campaigning again. */
    private Duration max = Duration.ofSeconds(2);

    public Duration getInitial() {
      return this.initial;
    }

    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    public Duration getMax() {
      return this.max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }
  }

  /** Where etcd is and how to talk to it. */
  public static class Etcd {

    /** Client URLs of the etcd members, http:// or https://. */
    private List<String> endpoints = new ArrayList<>(List.of("http://127.0.0.1:2379"));

    /** Login user of etcd. */
    private @Nullable String username;

    /** Login password of etcd. */
    private @Nullable String password;

    /** Key prefix of elections; an office's election is the prefix plus the office name. */
    private String prefix = "/conch/v1/elect/";

    /** Longest time any single etcd call, or a connection attempt, may take. */
    private Duration timeout = Duration.ofSeconds(5);

    /**
     * Most offices' keys on one lease; an instance with more offices takes another lease, so that a
     * renewal, loss or revoke touches a bounded set. 1 to 1000000.
     */
    private int maxKeysPerLease = 1000;

    private final Ssl ssl = new Ssl();

    public int getMaxKeysPerLease() {
      return this.maxKeysPerLease;
    }

    public void setMaxKeysPerLease(int maxKeysPerLease) {
      this.maxKeysPerLease = maxKeysPerLease;
    }

    public List<String> getEndpoints() {
      return this.endpoints;
    }

    public void setEndpoints(List<String> endpoints) {
      this.endpoints = endpoints;
    }

    public @Nullable String getUsername() {
      return this.username;
    }

    public void setUsername(@Nullable String username) {
      this.username = username;
    }

    public @Nullable String getPassword() {
      return this.password;
    }

    public void setPassword(@Nullable String password) {
      this.password = password;
    }

    public String getPrefix() {
      return this.prefix;
    }

    public void setPrefix(String prefix) {
      this.prefix = prefix;
    }

    public Duration getTimeout() {
      return this.timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public Ssl getSsl() {
      return this.ssl;
    }

    /** TLS towards etcd. */
    public static class Ssl {

      /** SSL bundle for TLS and client certificates; TLS is on when set or an endpoint is https. */
      private @Nullable String bundle;

      public @Nullable String getBundle() {
        return this.bundle;
      }

      public void setBundle(@Nullable String bundle) {
        this.bundle = bundle;
      }
    }
  }
}
