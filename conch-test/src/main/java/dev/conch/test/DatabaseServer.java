package dev.conch.test;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What a database server started for tests shares: its temp dir, its process on a free loopback
 * port, its log, and a stop that leaves nothing behind.
 */
abstract class DatabaseServer implements AutoCloseable {

  private final Path dir;
  private final DatabaseProcess process;
  private final String stopSignal;
  private final Duration stopGrace;

  DatabaseServer(Path dir, DatabaseProcess process, String stopSignal, Duration stopGrace) {
    this.dir = dir;
    this.process = process;
    this.stopSignal = stopSignal;
    this.stopGrace = stopGrace;
  }

  /** Loopback port the server listens on. */
  public int port() {
    return process.port();
  }

  /** The JDBC URL of the server's database. */
  public abstract String jdbcUrl();

  /** The temp dir holding the data directory, the log and any socket. */
  public Path directory() {
    return dir;
  }

  /** The server's log file. */
  public Path logFile() {
    return process.log();
  }

  /** Stops the server (a clean shutdown, then a kill after a grace) and deletes its dir. */
  @Override
  public void close() {
    process.stop(stopSignal, stopGrace, dir);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + jdbcUrl() + ", " + dir + "]";
  }
}
