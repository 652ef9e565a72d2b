package dev.conch.spring.boot.autoconfigure;

import dev.conch.GroupOptions;
import dev.conch.Holder;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.etcd.EtcdSession;
import dev.conch.spring.Elections;
import dev.conch.spring.OfficeBalancer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * A fair share of the application's offices among its instances ({@code conch.balance.*}), in etcd
 * mode: every office but the runner's (its election cannot hand over) joins one group, and an
 * office moves only while none of its {@code @LeaderOnly} calls runs.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "conch.balance.enabled", matchIfMissing = true)
class OfficeBalanceConfiguration {

  /** The group of an application without spring.application.name (nor conch.balance.group). */
  static final String DEFAULT_GROUP = "conch";

  // Until conch-core's GroupOptions has defaults of its own.
  static final Duration DEFAULT_DELAY = Duration.ofSeconds(5);

  static final Duration DEFAULT_MIN_TENURE = Duration.ofSeconds(30);

  @Bean
  LeaderOnlyCalls conchLeaderOnlyCalls() {
    return new LeaderOnlyCalls();
  }

  @Bean
  @ConditionalOnMissingBean
  OfficeBalancer conchOfficeBalancer(
      Elections elections,
      EtcdSession etcdSession,
      ConchProperties properties,
      Environment environment,
      LeaderOnlyCalls calls,
      ApplicationEventPublisher eventPublisher,
      @Qualifier(ConchTaskExecutorConfiguration.BEAN_NAME) Executor taskExecutor) {
    return new OfficeBalancer(
        elections,
        groupOptions(properties, environment),
        etcdSession::group,
        election -> !(election instanceof RunnerElection),
        calls::idle,
        eventPublisher,
        taskExecutor);
  }

  /**
   * The group options {@code conch.balance.*} and {@code conch.candidate.*} describe; a refusal
   * names its property and the value as it was written.
   */
  static GroupOptions groupOptions(ConchProperties properties, Environment environment) {
    try {
      String property = "conch.balance.group";
      String group = properties.getBalance().getGroup();
      if (!StringUtils.hasText(group)) {
        property = "spring.application.name";
        group = environment.getProperty(property);
      }
      if (!StringUtils.hasText(group)) {
        group = DEFAULT_GROUP;
      }
      String name = group;
      renamed(property, () -> Setting.OFFICE.require(name));
      Duration delay = atLeastZero("conch.balance.delay", properties.getBalance().getDelay());
      Duration minTenure =
          atLeastZero("conch.candidate.min-tenure", properties.getCandidate().getMinTenure());
      // What each election of this instance stores as its id: conch.candidate.id, else host:pid.
      String id =
          Objects.requireNonNull(Holder.self(group, properties.getCandidate().getId(), null).id());
      return SettingProperties.shared(environment)
          .check(
              () ->
                  new GroupOptions(
                      name,
                      id,
                      properties.getCandidate().getPriority(),
                      (delay != null) ? delay : DEFAULT_DELAY,
                      (minTenure != null) ? minTenure : DEFAULT_MIN_TENURE));
    } catch (InvalidArgumentException ex) {
      throw SettingProperties.asPropertyValue(ex, environment);
    }
  }

  private static void renamed(String property, Runnable check) {
    try {
      check.run();
    } catch (InvalidArgumentException ex) {
      throw ex.named(property);
    }
  }

  private static @Nullable Duration atLeastZero(String property, @Nullable Duration value) {
    if (value != null && value.isNegative()) {
      throw new InvalidArgumentException(
          property, value, "a duration of 0 or more, e.g. 300ms or 5s");
    }
    return value;
  }
}
