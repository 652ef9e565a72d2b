package dev.conch.chaos;

import dev.conch.test.EtcdCluster;
import dev.conch.test.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One candidate of the soak: a {@code conch elect --restart} supervisor process whose every
 * connection to etcd goes through proxies of its own (one per member), so that it can be cut off
 * alone. Its command is {@link #CHILD}: it records its token, then beats every 50 ms.
 */
final class Candidate implements AutoCloseable {

  /**
   * The supervised command: writes {@code <candidate> <token> <start>} once, then the time of its
   * latest beat, so that its life is known even when it dies by SIGKILL. With the soak's database
   * ({@link SoakDatabase}) a loop beside it writes a row through the fence every 200 ms with its
   * token, and notes each write the fence refused (psql's exit code 3: the fence returned no row).
   */
  static final String CHILD =
      "f=\"$CHAOS_DIR/child-$CONCH_REV-$$\";"
          + " echo \"$CHAOS_CANDIDATE $CONCH_REV $(date +%s%N) $$\" > \"$f.start\";"
          + " if [ -n \"$CHAOS_SQL\" ]; then ( while :; do"
          + " \"$CHAOS_PSQL\" -X -q -v ON_ERROR_STOP=1 -v token=\"$CONCH_REV\""
          + " -v who=\"$CHAOS_CANDIDATE\" -f \"$CHAOS_SQL\" >/dev/null 2>&1;"
          + " [ $? -eq 3 ] && echo \"$CONCH_REV\" >> \"$f.refused\"; sleep 0.2; done ) & fi;"
          + " while :; do date +%s%N > \"$f.tmp\"; mv \"$f.tmp\" \"$f.beat\"; sleep 0.05; done";

  /**
   * How many terms the supervisors keep in the office's history: the most they can, so that the
   * soak's check of the history ({@link HistoryCheck}) finds every term of a run of any length that
   * has fewer.
   */
  static final int HISTORY_TERMS = 1000;

  /** How many of its log's last lines {@link #describe} shows. */
  private static final int DESCRIBED_LINES = 15;

  final int index;
  private final List<SoakReport.Supervisor> supervisors = new ArrayList<>();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private final List<String> command;
  private final Path dir;
  private final String runId;
  private final Map<String, String> environment;
  private @Nullable Process process; // null until started
  private int starts;
  private final long[] forwardedMarks;

  /**
   * @param environment what the supervisor and so its command get besides the soak's own variables
   *     (the database's, or nothing)
   */
  Candidate(
      int index,
      EtcdCluster cluster,
      SoakOptions options,
      Path dir,
      String runId,
      Map<String, String> environment) {
    this.index = index;
    this.dir = dir;
    this.runId = runId;
    this.environment = Map.copyOf(environment);
    cluster.members().forEach(m -> proxies.add(TcpProxy.start("127.0.0.1", m.clientPort())));
    this.forwardedMarks = new long[proxies.size()];
    String endpoints = String.join(",", proxies.stream().map(TcpProxy::endpoint).toList());
    this.command =
        index < options.apps() ? sampleApp(options, endpoints) : cli(options, endpoints, index);
  }

  /**
   * The supervisor as {@code conch elect --restart}; with {@link SoakOptions#specDefaults()} it is
   * given nothing but the endpoints, as a new user would run it.
   */
  private static List<String> cli(SoakOptions options, String endpoints, int index) {
    List<String> command =
        new ArrayList<>(
            List.of(options.launcher().toString(), "elect", "chaos", "--endpoints", endpoints));
    if (!options.specDefaults()) {
      command.addAll(
          List.of(
              "--ttl",
              options.ttl().toSeconds() + "s",
              "--kill-after",
              options.killAfter().toMillis() + "ms"));
    }
    if (options.priorities()) {
      command.addAll(
          List.of(
              "--priority",
              Integer.toString(index),
              "--min-tenure",
              SoakOptions.PRIORITY_TENURE.toMillis() + "ms"));
    }
    command.addAll(
        List.of(
            "--history-terms",
            Integer.toString(HISTORY_TERMS),
            "--restart",
            "--",
            "sh",
            "-c",
            CHILD));
    return command;
  }

  /** The supervisor as the sample app with the Spring {@code ExternalCommandRunner} bean. */
  private static List<String> sampleApp(SoakOptions options, String endpoints) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                options.sampleApp().toString(),
                "--server.port=0",
                "--conch.office=chaos",
                "--conch.etcd.endpoints=" + endpoints,
                "--conch.runner.command[0]=sh",
                "--conch.runner.command[1]=-c",
                "--conch.runner.command[2]=" + CHILD,
                "--conch.runner.restart=true",
                "--conch.history-terms=" + HISTORY_TERMS));
    if (!options.specDefaults()) {
      command.addAll(
          List.of(
              "--conch.etcd.timeout=1s",
              "--conch.ttl=" + options.ttl().toSeconds() + "s",
              "--conch.runner.kill-after=" + options.killAfter().toMillis() + "ms"));
    }
    return command;
  }

  /** Starts (or starts again) the supervisor process. */
  synchronized void start() {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(
                    dir.resolve("supervisor-" + index + ".log").toFile()));
    builder.environment().putAll(environment);
    builder.environment().put("CHAOS_DIR", dir.toString());
    builder.environment().put("CHAOS_CANDIDATE", Integer.toString(index));
    builder.environment().put("CHAOS_RUN", runId); // how orphans are found at the end
    try {
      Process started = builder.start();
      process = started;
      supervisors.add(new SoakReport.Supervisor(index, started.pid(), ChaosSoak.now()));
      starts++;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command.get(0), e);
    }
  }

  synchronized long pid() {
    return started().pid();
  }

  private Process started() {
    Process started = process;
    if (started == null) {
      throw new IllegalStateException("supervisor " + index + " was never started");
    }
    return started;
  }

  /** SIGKILL: the supervisor dies without a word; its watchdog must take its command along. */
  synchronized void kill() throws InterruptedException {
    Process supervisor = started();
    supervisor.destroyForcibly();
    supervisor.waitFor(10, TimeUnit.SECONDS);
  }

  synchronized void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid())).start();
      kill.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The index of the member whose proxy forwarded the most bytes for this supervisor since the
   * previous call (or since it was made): the member it talks to most, e.g. the one carrying its
   * watch streams.
   */
  synchronized int busiestMember() {
    int busiest = 0;
    long most = -1;
    for (int i = 0; i < proxies.size(); i++) {
      long total = proxies.get(i).bytesForwarded();
      long delta = total - forwardedMarks[i];
      forwardedMarks[i] = total;
      if (delta > most) {
        most = delta;
        busiest = i;
      }
    }
    return busiest;
  }

  void cutOff() {
    proxies.forEach(TcpProxy::blackhole);
  }

  void reconnect() {
    proxies.forEach(TcpProxy::restore);
  }

  /** Stops the supervisor as an operator would (SIGTERM), waits for it, then the proxies. */
  @Override
  public synchronized void close() {
    reconnect();
    // A supervisor that could not start has no process: only its proxies are closed, and the
    // soak reports why it could not start.
    Process supervisor = process;
    if (supervisor != null) {
      signal("CONT");
      supervisor.destroy();
      try {
        if (!supervisor.waitFor(30, TimeUnit.SECONDS)) {
          supervisor.destroyForcibly();
          supervisor.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    proxies.forEach(TcpProxy::close);
  }

  /**
   * The supervisor's state and the last lines of its log, for a soak that cannot start: a test's
   * temporary directory is gone by the time anyone reads the failure.
   */
  synchronized String describe() {
    Process supervisor = process;
    String state =
        supervisor == null
            ? "never started"
            : supervisor.isAlive()
                ? "pid " + supervisor.pid() + " running"
                : "pid " + supervisor.pid() + " exited " + supervisor.exitValue();
    List<String> lines;
    try {
      lines = Files.readAllLines(dir.resolve("supervisor-" + index + ".log"));
    } catch (IOException e) {
      lines = List.of("(no log: " + e + ")");
    }
    StringBuilder out =
        new StringBuilder(System.lineSeparator())
            .append("supervisor ")
            .append(index)
            .append(": ")
            .append(state)
            .append(", the last lines of its log:");
    lines
        .subList(Math.max(0, lines.size() - DESCRIBED_LINES), lines.size())
        .forEach(line -> out.append(System.lineSeparator()).append("  ").append(line));
    return out.toString();
  }

  int starts() {
    return starts;
  }

  /**
   * Every supervisor process this candidate started, in order: the pid the history's holder must
   * name for a term whose command started after it.
   */
  synchronized List<SoakReport.Supervisor> supervisors() {
    return List.copyOf(supervisors);
  }
}
