package dev.conch.process;

import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Runners of one test and the files their commands write, all in one directory that scripts find as
 * {@code $T}; closing stops every runner.
 */
final class Runners implements AutoCloseable {

  /** The longest any test waits for a state. */
  static final Duration WAIT = Duration.ofSeconds(30);

  private final Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();

  Runners(Path dir) {
    this.dir = dir;
  }

  /** {@code sh -c script}, as the command's argv. */
  static List<String> sh(String script) {
    return List.of("sh", "-c", script);
  }

  /** A builder with short timeouts, output to a log file, and {@code T} in the environment. */
  ExternalCommandRunner.Builder builder(
      String office, Function<ElectionOptions, Election> elections) {
    return ExternalCommandRunner.builder(office, elections)
        .killAfter(Duration.ofSeconds(1))
        .hookTimeout(Duration.ofSeconds(10))
        .backoff(Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(60))
        .environment(Map.of("T", dir.toString()))
        // Never the test JVM's own stdout: surefire talks to Maven through it.
        .redirectOutput(Redirect.appendTo(dir.resolve("output.log").toFile()))
        .redirectError(Redirect.appendTo(dir.resolve("output.log").toFile()));
  }

  /** Builds and starts the runner; it is stopped when this closes. */
  ExternalCommandRunner start(ExternalCommandRunner.Builder builder) {
    ExternalCommandRunner runner = track(builder.build());
    runner.start();
    return runner;
  }

  /** Closes {@code closeable} with the runners, before them. */
  <T extends AutoCloseable> T track(T closeable) {
    open.add(0, closeable);
    return closeable;
  }

  /** A file of the test directory. */
  Path file(String name) {
    return dir.resolve(name);
  }

  /** The lines of a file, none while it does not exist. */
  List<String> lines(String name) {
    try {
      Path file = file(name);
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for a file holding one pid, as a command wrote it with {@code echo $$ > file}. */
  long awaitPid(String name) {
    await().atMost(WAIT).until(() -> lines(name).size() == 1 && lines(name).get(0).matches("\\d+"));
    return Long.parseLong(lines(name).get(0));
  }

  /** Creates an empty file (a command waiting for it goes on). */
  void touch(String name) {
    try {
      Files.writeString(file(name), "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts {@code main} in a JVM of its own with this test's class path, its output in {@code
   * dir}/jvm.log: a supervisor the test can kill, freeze or let exit.
   */
  static Process startJvm(Class<?> main, Path dir, String... args) throws IOException {
    return startJvm(main, dir, Map.of(), args);
  }

  /** {@link #startJvm(Class, Path, String...)} with {@code environment} added to the test's. */
  static Process startJvm(Class<?> main, Path dir, Map<String, String> environment, String... args)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // As bin/conch starts the CLI: a supervisor that is up sooner, so that a test of many starts
    // stays short.
    command.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("jvm.log").toFile());
    builder.environment().putAll(environment);
    return builder.start();
  }

  /** Whether process {@code pid} still runs (a zombie does not). */
  static boolean running(long pid) {
    return ProcessGroups.running(pid);
  }

  @Override
  public void close() {
    for (AutoCloseable closeable : open) {
      try {
        closeable.close();
      } catch (Exception e) {
        // closing everything matters more than one failure
      }
    }
    open.clear();
  }
}
