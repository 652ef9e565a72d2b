package dev.conch.spring.boot.autoconfigure;

import static java.util.Map.entry;

import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.PropertyResolver;

/**
 * The {@code conch.*} property behind each {@link Setting} of conch-core: the one place where the
 * core's names meet the properties, so that a refusal names what the user wrote ({@code conch.ttl}
 * where the core says {@code ttl}).
 *
 * <p>A refused value becomes Boot's {@link InvalidConfigurationPropertyValueException}, whose
 * failure analysis shows the value as the user wrote it, in each property source that sets it, with
 * its origin (file and line, command-line argument); the reason is conch-core's: what is accepted.
 */
final class SettingProperties {

  /** The properties of the settings that do not depend on the office. */
  private static final Map<Setting<?>, String> PROPERTIES =
      Map.ofEntries(
          entry(Setting.TTL, "conch.ttl"),
          entry(Setting.RENEW_INTERVAL, "conch.renew-interval"),
          entry(Setting.PREFIX, "conch.etcd.prefix"),
          entry(Setting.TIMEOUT, "conch.etcd.timeout"),
          entry(Setting.ENDPOINTS, "conch.etcd.endpoints"),
          entry(Setting.ENDPOINT, "conch.etcd.endpoints"),
          entry(Setting.CANDIDATE_ID, "conch.candidate.id"),
          entry(Setting.PRIORITY, "conch.candidate.priority"),
          entry(Setting.MIN_TENURE, "conch.candidate.min-tenure"),
          entry(Setting.GROUP, "conch.balance.group"),
          entry(Setting.BALANCE_DELAY, "conch.balance.delay"),
          entry(Setting.EVENT_BUFFER, "conch.event-buffer"),
          entry(Setting.HISTORY_TERMS, "conch.history-terms"),
          entry(Setting.KEYS_PER_LEASE, "conch.etcd.max-keys-per-lease"),
          entry(Setting.RETRY_INITIAL, "conch.retry.initial"),
          entry(Setting.RETRY_MAX, "conch.retry.max"),
          entry(Setting.COMMAND, "conch.runner.command"),
          entry(Setting.RESTART, "conch.runner.restart"),
          entry(Setting.KILL_AFTER, "conch.runner.kill-after"),
          entry(Setting.ON_ACQUIRE, "conch.runner.on-acquire"),
          entry(Setting.ON_LOSE, "conch.runner.on-lose"),
          entry(Setting.RUNNER_HOOK_TIMEOUT, "conch.runner.hook-timeout"),
          entry(Setting.WAIT, "conch.runner.wait"),
          // The runner's election name is the prefix plus its office.
          entry(Setting.ELECTION_NAME, "conch.etcd.prefix"));

  /** The properties of the settings shared by every office: the session's, the connection's. */
  static final SettingProperties SHARED = new SettingProperties(null, null, null, null);

  private final @Nullable String office;

  private final @Nullable String officeProperty;

  private final ConchProperties.@Nullable Office own;

  private final @Nullable PropertyResolver environment;

  private SettingProperties(
      @Nullable String office,
      @Nullable String officeProperty,
      ConchProperties.@Nullable Office own,
      @Nullable PropertyResolver environment) {
    this.office = office;
    this.officeProperty = officeProperty;
    this.own = own;
    this.environment = environment;
  }

  /**
   * The properties of the shared settings, whose refused values are echoed as {@code environment}
   * has them: as the user wrote them ({@code 1500ms}, where the core would say {@code 1s500ms}).
   */
  static SettingProperties shared(PropertyResolver environment) {
    return new SettingProperties(null, null, null, environment);
  }

  /**
   * The properties of {@code office}'s settings: its own {@code conch.offices.<office>.*} where
   * set, else the {@code conch.*} defaults.
   */
  static SettingProperties of(
      ConchProperties properties, ConfiguredOffices offices, String office) {
    return new SettingProperties(
        office,
        offices.propertyOf(office),
        properties.getOffices().get(office),
        offices.environment());
  }

  /** The property that sets {@code setting}; {@code null} when no property does. */
  @Nullable String property(Setting<?> setting) {
    if (setting == Setting.OFFICE) {
      return this.officeProperty;
    }
    if (setting == Setting.HOOK_TIMEOUT
        || setting == Setting.STOP_TIMEOUT
        || setting == Setting.SAFETY_MARGIN) {
      return (override(setting) != null)
          ? "conch.offices." + this.office + "." + setting.name()
          : "conch." + setting.name();
    }
    return PROPERTIES.get(setting);
  }

  /** Runs {@code check}; a refusal of a setting is reported against its property. */
  <T> T check(Supplier<T> check) {
    try {
      return check.get();
    } catch (InvalidArgumentException ex) {
      throw invalid(ex);
    }
  }

  /**
   * {@code ex} under the property of its setting, as Boot's refusal of a property value; one named
   * already keeps its name, and one without a value (nothing was set) stays as it is.
   */
  RuntimeException invalid(InvalidArgumentException ex) {
    return asPropertyValue(named(ex), this.environment);
  }

  /**
   * {@code ex} as Boot's refusal of the property it names, when it names one and a value; it is
   * kept as a suppressed exception, for its stack trace.
   */
  static RuntimeException asPropertyValue(
      InvalidArgumentException ex, @Nullable PropertyResolver environment) {
    if (ex.value() == null || !ex.name().contains(".")) {
      return ex;
    }
    String typed = (environment != null) ? typed(environment, ex.name()) : null;
    InvalidConfigurationPropertyValueException invalid =
        new InvalidConfigurationPropertyValueException(
            ex.name(), (typed != null) ? typed : ex.value(), "Accepted: " + ex.accepted() + ".");
    invalid.addSuppressed(ex);
    return invalid;
  }

  /** The value of {@code property} as written, if it is one plain value (not a list or a map). */
  private static @Nullable String typed(PropertyResolver environment, String property) {
    try {
      return environment.getProperty(property);
    } catch (RuntimeException ex) {
      // An unresolvable placeholder, say: the core's rendering of the value is echoed instead.
      return null;
    }
  }

  InvalidArgumentException named(InvalidArgumentException ex) {
    if (ex.isRenamed()) {
      return ex;
    }
    String property = ex.setting().map(this::property).orElse(null);
    return (property != null) ? ex.named(property) : ex;
  }

  private @Nullable Duration override(Setting<?> setting) {
    ConchProperties.Office own = this.own;
    if (own == null) {
      return null;
    }
    if (setting == Setting.HOOK_TIMEOUT) {
      return own.getHookTimeout();
    }
    return (setting == Setting.STOP_TIMEOUT) ? own.getStopTimeout() : own.getSafetyMargin();
  }
}
