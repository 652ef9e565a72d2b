package dev.conch.cli.logging;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.logging.LogManager;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The CLI's SLF4J provider: one line per event on stderr, so that stdout carries only what the
 * command prints and the child's output. conch's own loggers log from INFO (only errors under
 * {@code --quiet}); the libraries underneath (jetcd, gRPC, Netty, Vert.x) only errors, since their
 * retries while etcd is away are conch's business to report, once.
 *
 * <p>Hand-written rather than slf4j-simple: the format, the JSON variant and the levels are set
 * from the command line after start, and it loads a handful of classes (start-up matters).
 */
public final class StderrLogging implements SLF4JServiceProvider, ILoggerFactory {

  private static volatile Level conchLevel = Level.INFO;
  private static volatile Level libraryLevel = Level.ERROR;
  private static volatile boolean json;
  private static volatile PrintStream out = System.err;

  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();

  /** Created by SLF4J through the service loader. */
  public StderrLogging() {}

  /**
   * Sets the levels and the format. {@code $CONCH_LOG=debug} shows everything, libraries too, for a
   * bug report; {@code quiet} leaves only errors.
   */
  public static void configure(boolean quiet, boolean jsonLines) {
    json = jsonLines;
    String wanted = System.getenv("CONCH_LOG");
    if ("debug".equalsIgnoreCase(wanted) || "trace".equalsIgnoreCase(wanted)) {
      conchLevel = Level.valueOf(wanted.toUpperCase(java.util.Locale.ROOT));
      libraryLevel = Level.DEBUG;
    } else {
      conchLevel = quiet ? Level.ERROR : Level.INFO;
      libraryLevel = Level.ERROR;
    }
  }

  /**
   * Keeps java.util.logging, which gRPC and Vert.x log through, off the console (on it with {@code
   * $CONCH_LOG=debug}); before the first jetcd client is built, after {@link #configure}. Not done
   * for a read over etcd's JSON gateway: starting java.util.logging makes the JDK look for a logger
   * service in every jar of the class path, about 30 ms of a {@code --who}.
   */
  public static void quietJavaUtilLogging() {
    LogManager.getLogManager().reset();
    java.util.logging.Logger.getLogger("")
        .setLevel(
            libraryLevel == Level.DEBUG
                ? java.util.logging.Level.FINE
                : java.util.logging.Level.OFF);
  }

  static boolean enabled(String name, Level level) {
    Level threshold = name.startsWith("dev.conch") ? conchLevel : libraryLevel;
    return level.toInt() >= threshold.toInt();
  }

  static void write(String name, Level level, String message, Throwable error) {
    String cause = error == null ? null : describe(error);
    StringBuilder line = new StringBuilder(128);
    if (json) {
      line.append("{\"time\":\"")
          .append(Instant.now().truncatedTo(ChronoUnit.MILLIS))
          .append("\",\"level\":\"")
          .append(level);
      line.append("\",\"logger\":");
      quote(line, name).append(",\"message\":");
      quote(line, message);
      if (cause != null) {
        quote(line.append(",\"error\":"), cause);
      }
      line.append('}');
    } else {
      line.append(Instant.now().truncatedTo(ChronoUnit.MILLIS))
          .append(" conch ")
          .append(level)
          .append(' ')
          .append(message);
      if (cause != null) {
        line.append(": ").append(cause);
      }
    }
    PrintStream stream = out;
    synchronized (stream) {
      stream.println(line);
      if (error != null && libraryLevel == Level.DEBUG) {
        error.printStackTrace(stream);
      }
    }
  }

  private static String describe(Throwable error) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = error; t != null && text.length() < 500; t = t.getCause()) {
      String message = t.getMessage();
      if (text.length() > 0) {
        text.append(" <- ");
      }
      text.append(message == null || message.isBlank() ? t.getClass().getSimpleName() : message);
      if (t.getCause() == t) {
        break;
      }
    }
    return text.toString();
  }

  private static StringBuilder quote(StringBuilder line, String text) {
    line.append('"');
    JsonStringEncoder.getInstance().quoteAsString(text == null ? "null" : text, line);
    return line.append('"');
  }

  @Override
  public Logger getLogger(String name) {
    return new StderrLogger(name);
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return this;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {
    // Nothing to read: configure() is called by Main once the flags are parsed.
  }
}
