package dev.conch.cli.logging;

import org.jspecify.annotations.Nullable;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** One named logger of {@link StderrLogging}; the levels are read on every call. */
final class StderrLogger extends LegacyAbstractLogger {

  private static final long serialVersionUID = 1L;

  StderrLogger(String name) {
    this.name = name;
  }

  @Override
  public boolean isTraceEnabled() {
    return StderrLogging.enabled(name, Level.TRACE);
  }

  @Override
  public boolean isDebugEnabled() {
    return StderrLogging.enabled(name, Level.DEBUG);
  }

  @Override
  public boolean isInfoEnabled() {
    return StderrLogging.enabled(name, Level.INFO);
  }

  @Override
  public boolean isWarnEnabled() {
    return StderrLogging.enabled(name, Level.WARN);
  }

  @Override
  public boolean isErrorEnabled() {
    return StderrLogging.enabled(name, Level.ERROR);
  }

  @Override
  protected @Nullable String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String pattern, Object[] arguments, Throwable error) {
    String message = MessageFormatter.basicArrayFormat(pattern, arguments);
    StderrLogging.write(name, level, message, error);
  }
}
