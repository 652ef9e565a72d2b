package dev.conch.spring.boot.autoconfigure;

import static java.util.Map.entry;

import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@code conch.*} property behind each {@link Setting} of conch-core: the one place where the
 * core's names meet the properties, so that a refusal names what the user wrote ({@code conch.ttl}
 * where the core says {@code ttl}).
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
          entry(Setting.EVENT_BUFFER, "conch.event-buffer"),
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
  static final SettingProperties SHARED = new SettingProperties(null, null, null);

  private final @Nullable String office;

  private final @Nullable String officeProperty;

  private final ConchProperties.@Nullable Office own;

  private SettingProperties(
      @Nullable String office,
      @Nullable String officeProperty,
      ConchProperties.@Nullable Office own) {
    this.office = office;
    this.officeProperty = officeProperty;
    this.own = own;
  }

  /**
   * The properties of {@code office}'s settings: its own {@code conch.offices.<office>.*} where
   * set, else the {@code conch.*} defaults.
   */
  static SettingProperties of(
      ConchProperties properties, ConfiguredOffices offices, String office) {
    return new SettingProperties(
        office, offices.propertyOf(office), properties.getOffices().get(office));
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
      throw named(ex);
    }
  }

  /** {@code ex} under the property of its setting; one named already stays as it is. */
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
