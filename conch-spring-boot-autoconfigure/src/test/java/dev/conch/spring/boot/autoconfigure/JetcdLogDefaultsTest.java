package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.env.MockEnvironment;

/**
 * jetcd's client loggers are at ERROR unless the application set a level for them: its own {@code
 * logging.level} wins, for the package, a package above it, or one logger below it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JetcdLogDefaultsTest {

  private static final String LEASE = "io.etcd.jetcd.impl.LeaseImpl";

  private static final String KV = "io.etcd.jetcd.impl.KVImpl";

  @AfterEach
  void restoreTheTestLogging() throws Exception {
    LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
    logging.reset();
    new ContextInitializer(logging).autoConfig();
  }

  @Test
  void jetcdsClientsLogAtErrorByDefault() {
    assertThat(levelsAfterStart()).containsExactly(LogLevel.ERROR, LogLevel.ERROR);
  }

  @Test
  void aLevelTheApplicationSetsForAPackageAboveWins() {
    assertThat(levelsAfterStart("--logging.level.io.etcd=debug"))
        .containsExactly(LogLevel.DEBUG, LogLevel.DEBUG);
  }

  @Test
  void aLevelTheApplicationSetsForJetcdsClientsWins() {
    assertThat(levelsAfterStart("--logging.level.io.etcd.jetcd.impl=warn"))
        .containsExactly(LogLevel.WARN, LogLevel.WARN);
  }

  @Test
  void aLevelTheApplicationSetsForOneLoggerWinsForThatLoggerOnly() {
    assertThat(levelsAfterStart("--logging.level.io.etcd.jetcd.impl.KVImpl=warn"))
        .containsExactly(LogLevel.ERROR, LogLevel.WARN);
  }

  @Test
  void theDefaultHasTheLowestPrecedence() {
    MockEnvironment environment = new MockEnvironment();
    new JetcdLogDefaults().postProcessEnvironment(environment, new SpringApplication());
    assertThat(environment.getPropertySources().stream().toList())
        .last()
        .extracting(source -> source.getName())
        .isEqualTo(JetcdLogDefaults.SOURCE);
    assertThat(environment.getProperty("logging.level.io.etcd.jetcd.impl")).isEqualTo("ERROR");
  }

  @Test
  void nothingIsSetWhenConchIsDisabled() {
    MockEnvironment environment = new MockEnvironment().withProperty("conch.enabled", "false");
    new JetcdLogDefaults().postProcessEnvironment(environment, new SpringApplication());
    assertThat(environment.getPropertySources().contains(JetcdLogDefaults.SOURCE)).isFalse();
  }

  /** The effective levels of jetcd's lease and KV clients once an application started. */
  private static LogLevel[] levelsAfterStart(String... args) {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Empty.class).web(WebApplicationType.NONE).run(args)) {
      LoggingSystem logging = context.getBean(LoggingSystem.class);
      LoggerFactory.getLogger(LEASE); // logback describes only the loggers it made
      LoggerFactory.getLogger(KV);
      return new LogLevel[] {
        logging.getLoggerConfiguration(LEASE).getEffectiveLevel(),
        logging.getLoggerConfiguration(KV).getEffectiveLevel()
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class Empty {}
}
