package dev.conch.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One etcd process of an {@link EtcdCluster}, on loopback ports that stay the same across restarts,
 * with its own data directory and log file.
 *
 * <p>Obtain members from {@link EtcdCluster#member(int)}; the cluster owns and closes them.
 */
public final class EtcdMember {

  /** How long SIGTERM may take before {@link #stop()} falls back to SIGKILL. */
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  /**
   * Bound on one health probe. A healthy member answers in milliseconds; one without a quorum does
   * not answer at all, and a longer bound would only slow the polling loops down.
   */
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

  private final String name;
  private final int clientPort;
  private final int peerPort;
  private final Path dir;
  private final List<String> command;
  private final int clusterSize;
  private final Duration startTimeout;

  private volatile @Nullable Process process;
  private volatile boolean paused;

  EtcdMember(
      String name,
      int clientPort,
      int peerPort,
      Path dir,
      List<String> command,
      int clusterSize,
      Duration startTimeout) {
    this.name = name;
    this.clientPort = clientPort;
    this.peerPort = peerPort;
    this.dir = dir;
    this.command = List.copyOf(command);
    this.clusterSize = clusterSize;
    this.startTimeout = startTimeout;
  }

  /** Member name as given to etcd's {@code --name}, e.g. {@code "conch-0"}. */
  public String name() {
    return name;
  }

  /** Loopback port that clients connect to. */
  public int clientPort() {
    return clientPort;
  }

  /** Loopback port that the other members connect to. */
  public int peerPort() {
    return peerPort;
  }

  /** Client URL of this member, {@code http://127.0.0.1:<clientPort>}. */
  public String endpoint() {
    return "http://127.0.0.1:" + clientPort;
  }

  /** Directory holding this member's etcd data directory and log file. */
  public Path dataDir() {
    return dir;
  }

  /** File that receives etcd's stdout and stderr, appended to across restarts. */
  public Path logFile() {
    return dir.resolve("etcd.log");
  }

  /** Process id of the current etcd process, or of the last one if the member is stopped. */
  public long pid() {
    Process current = process;
    return current == null ? -1 : current.pid();
  }

  /** Whether the etcd process is alive; a paused member is still running. */
  public boolean isRunning() {
    Process current = process;
    return current != null && current.isAlive();
  }

  /** Whether the member has been {@linkplain #pause() paused} and not resumed. */
  public boolean isPaused() {
    return paused && isRunning();
  }

  /** Whether {@code /health} answers {@code "health":"true"} right now (one probe). */
  /**
   * The sum of every sample of the Prometheus metric {@code name} this member reports on {@code
   * /metrics} (e.g. {@code etcd_debugging_mvcc_watcher_total}, {@code grpc_server_handled_total}).
   *
   * @throws IllegalStateException when the member does not answer within 5 s
   */
  public double metric(String name) {
    return EtcdHttp.metric(endpoint(), name, Duration.ofSeconds(5))
        .orElseThrow(() -> new IllegalStateException(this + " did not answer /metrics"));
  }

  public boolean isHealthy() {
    return isRunning() && EtcdHttp.healthy(endpoint(), PROBE_TIMEOUT);
  }

  /**
   * Restarts the member with the same name, ports and data directory.
   *
   * <p>In a one-member cluster this waits until the member is healthy. In a larger cluster it waits
   * only until the client port accepts TCP connections: etcd answers nothing on that port, not even
   * {@code /health}, until it has a quorum, and the test may be restarting the first of two stopped
   * members. Call {@link #awaitHealthy(Duration)} or {@link EtcdCluster#awaitHealthy(Duration)}
   * when a quorum is expected.
   *
   * @throws IllegalStateException if it is already running, or does not come up in time
   */
  public synchronized void start() {
    if (isRunning()) {
      throw new IllegalStateException("Member " + name + " is already running");
    }
    launch();
    if (clusterSize == 1) {
      awaitHealthy(startTimeout);
    } else {
      awaitListening(startTimeout);
    }
  }

  /** Sends SIGTERM and waits until etcd exits, falling back to SIGKILL after 10 s. */
  public synchronized void stop() {
    Process current = process;
    if (current != null && current.isAlive()) {
      // A stopped process keeps SIGTERM pending forever, so wake it first.
      resumeIfPaused(current);
      Processes.terminate(current, STOP_GRACE);
    }
    paused = false;
  }

  /** Sends SIGKILL and waits until etcd exits, as a crash would. */
  public synchronized void kill() {
    Process current = process;
    if (current != null && current.isAlive()) {
      Processes.kill(current);
    }
    paused = false;
  }

  /**
   * Freezes the process with SIGSTOP: its ports keep accepting connections but nothing answers,
   * like a member stuck in a long GC pause or a VM that was suspended.
   */
  public synchronized void pause() {
    Processes.signal(requireRunning().pid(), "STOP");
    paused = true;
  }

  /** Continues a {@linkplain #pause() paused} process with SIGCONT. */
  public synchronized void resume() {
    Processes.signal(requireRunning().pid(), "CONT");
    paused = false;
  }

  /**
   * Waits until {@code /health} answers {@code "health":"true"}.
   *
   * @throws IllegalStateException at the deadline, or as soon as the process exits, with the tail
   *     of the member's log
   */
  public void awaitHealthy(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!probeHealthy()) {
      if (Processes.remainingMillis(deadline) <= 0 || !Processes.pause(50)) {
        throw failure("not healthy within " + timeout);
      }
    }
  }

  /** Starts the etcd process without waiting; the cluster waits for all members together. */
  void launch() {
    try {
      Files.createDirectories(dir);
      ProcessBuilder builder =
          Processes.withoutEnv(new ProcessBuilder(command), "ETCD")
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      process = Processes.start(builder);
      paused = false;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start etcd member " + name, e);
    }
  }

  /**
   * One health probe that fails fast if the process is gone.
   *
   * @throws PortClashException if etcd exited because a port was taken
   */
  boolean probeHealthy() {
    if (!isRunning()) {
      throw failure("exited");
    }
    return EtcdHttp.healthy(endpoint(), PROBE_TIMEOUT);
  }

  /** The member's own status, or empty if it does not answer in time. */
  Optional<EtcdHttp.Status> status(Duration timeout) {
    return isRunning() && !paused ? EtcdHttp.status(endpoint(), timeout) : Optional.empty();
  }

  /** Builds the exception for a member that did not come up, with its log tail. */
  IllegalStateException failure(String what) {
    Process current = process;
    String exit =
        current != null && !current.isAlive() ? " (exit code " + current.exitValue() + ")" : "";
    String log = Processes.tail(logFile(), 30);
    String message =
        "etcd member "
            + name
            + " at "
            + endpoint()
            + " "
            + what
            + exit
            + "; last lines of "
            + logFile()
            + ":\n"
            + log;
    return log.contains("address already in use")
        ? new PortClashException(message)
        : new IllegalStateException(message);
  }

  private void awaitListening(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (!isRunning()) {
        throw failure("exited");
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), clientPort), 500);
        return;
      } catch (IOException notYet) {
        if (Processes.remainingMillis(deadline) <= 0 || !Processes.pause(50)) {
          throw failure("not listening within " + timeout);
        }
      }
    }
  }

  private void resumeIfPaused(Process current) {
    if (paused) {
      Processes.signal(current.pid(), "CONT");
      paused = false;
    }
  }

  private Process requireRunning() {
    Process current = process;
    if (current == null || !current.isAlive()) {
      throw new IllegalStateException("Member " + name + " is not running");
    }
    return current;
  }

  @Override
  public String toString() {
    return name + "@" + endpoint();
  }

  /** etcd could not bind a port we believed free; the cluster retries with fresh ports. */
  static final class PortClashException extends IllegalStateException {
    PortClashException(String message) {
      super(message);
    }
  }
}
