package dev.conch.sample;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Debian's {@code chromium} run headless on one page, as a user's browser would render it: the DOM
 * it built ({@code --dump-dom}) and a screenshot. Each run has a profile, home and cache of its own
 * in a temporary directory, is bounded by {@link #TIMEOUT}, and leaves no process behind: the
 * browser runs in a process group of its own ({@code setsid}), which is killed after the run, and
 * so is every process that names the run's directory (the crash handlers leave the group).
 */
final class HeadlessChromium {

  /** How long one run may take: a cold start on a busy machine takes a few seconds. */
  static final Duration TIMEOUT = Duration.ofSeconds(90);

  private final Path executable;

  private HeadlessChromium(Path executable) {
    this.executable = executable;
  }

  /** The {@code chromium} on the {@code PATH}, if there is one. */
  static Optional<HeadlessChromium> find() {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.of(path.split(File.pathSeparator))
        .filter(dir -> !dir.isEmpty())
        .map(dir -> Path.of(dir, "chromium"))
        .filter(Files::isExecutable)
        .findFirst()
        .map(HeadlessChromium::new);
  }

  /**
   * Loads {@code url} in a window of {@code width} x {@code height}, writes what it shows to {@code
   * png}, and returns the DOM the browser built, serialized: both of the same load, once the page
   * had loaded. The browser's own output goes to {@code log}.
   */
  String render(String url, Path png, int width, int height, Path log) {
    return run(
        List.of(
            "--dump-dom",
            "--screenshot=" + png.toAbsolutePath(),
            "--window-size=" + width + "," + height,
            url),
        log);
  }

  private String run(List<String> args, Path log) {
    Path dir;
    try {
      dir = Files.createTempDirectory("conch-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> command = new ArrayList<>();
    // Its own session and process group, led by the browser (setsid execs it: the same pid).
    command.addAll(List.of("setsid", this.executable.toString()));
    command.addAll(
        List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--user-data-dir=" + dir.resolve("profile")));
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    // Nothing written to the user's home: the crash handler's database, caches and config.
    Map<String, String> env = builder.environment();
    env.put("HOME", dir.toString());
    env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
    env.put("XDG_CACHE_HOME", dir.resolve("cache").toString());
    Process browser = null;
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      browser = builder.start();
      if (!browser.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            "chromium did not finish within " + TIMEOUT + ": " + command + ", log " + log);
      }
      if (browser.exitValue() != 0) {
        throw new IllegalStateException(
            "chromium exited with " + browser.exitValue() + ": " + command + ", log " + log);
      }
      return Files.readString(dir.resolve("stdout"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for chromium", e);
    } finally {
      reap(browser, dir);
    }
  }

  /** Kills what is left of a run, waits until it is gone, and removes its directory. */
  private static void reap(Process browser, Path dir) {
    List<ProcessHandle> left = new ArrayList<>();
    if (browser != null) {
      left.add(browser.toHandle());
      left.addAll(browser.descendants().toList());
      killGroup(browser.pid());
    }
    String mark = dir.toString();
    ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().orElse("").contains(mark))
        .forEach(left::add);
    left.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle process : left) {
      try {
        process.onExit().get(10, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("chromium process " + process.pid() + " did not exit", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    delete(dir);
  }

  /** SIGKILL to the browser's process group (Java signals single processes only). */
  private static void killGroup(long pgid) {
    try {
      // Its status is not checked: kill fails when the group is already gone.
      Process kill =
          new ProcessBuilder("kill", "-KILL", "--", "-" + pgid)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException("kill of chromium's process group " + pgid + " hung");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not kill chromium's process group " + pgid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not remove " + dir, e);
    }
  }
}
