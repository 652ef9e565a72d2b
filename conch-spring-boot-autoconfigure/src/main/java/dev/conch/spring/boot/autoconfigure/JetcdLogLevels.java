package dev.conch.spring.boot.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggerConfiguration;
import org.springframework.boot.logging.LoggingSystem;

/**
 * Quiets the one jetcd logger that buries an etcd outage. jetcd's lease client logs two WARN lines
 * for every failed call ("retry failure" and "maximum number of auto retries reached", from its
 * retry wrapper, which conch turns off), so every 500 ms while a campaign's lease grant cannot
 * reach etcd, and they name neither the endpoint nor conch's setting. conch says it itself: the
 * campaign's WARN names the endpoints and {@code conch.etcd.endpoints}, a leader's failed renewal
 * is said once.
 *
 * <p>The logger is set to ERROR when the context starts, unless the application configured a level
 * for it or for a package above it ({@code logging.level.io.etcd=debug} keeps every line); a level
 * on the root logger alone does not count. Nothing happens without Spring Boot's logging system.
 */
final class JetcdLogLevels implements InitializingBean {

  /** jetcd's lease client, whose retry wrapper logs each failed call. */
  static final String LEASE_LOGGER = "io.etcd.jetcd.impl.LeaseImpl";

  private static final Log logger = LogFactory.getLog(JetcdLogLevels.class);

  private final @Nullable LoggingSystem loggingSystem;

  JetcdLogLevels(@Nullable LoggingSystem loggingSystem) {
    this.loggingSystem = loggingSystem;
  }

  @Override
  public void afterPropertiesSet() {
    if (this.loggingSystem != null && quiet(this.loggingSystem)) {
      logger.debug(LEASE_LOGGER + " set to ERROR: conch reports an etcd out of reach itself");
    }
  }

  /** Sets the lease logger to ERROR unless a level was set for it; whether it did. */
  static boolean quiet(LoggingSystem loggingSystem) {
    for (String name = LEASE_LOGGER; !name.isEmpty(); name = parent(name)) {
      LoggerConfiguration configuration = loggingSystem.getLoggerConfiguration(name);
      if (configuration != null && configuration.getConfiguredLevel() != null) {
        return false;
      }
    }
    loggingSystem.setLogLevel(LEASE_LOGGER, LogLevel.ERROR);
    return true;
  }

  private static String parent(String name) {
    int dot = name.lastIndexOf('.');
    return (dot < 0) ? "" : name.substring(0, dot);
  }
}
