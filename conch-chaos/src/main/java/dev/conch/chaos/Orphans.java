package dev.conch.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/** Looks through {@code /proc} and the soak's files: who is still running, who beat last. */
final class Orphans {

  private Orphans() {}

  /**
   * Waits up to {@code grace} for every process carrying {@code CHAOS_RUN=<runId>} in its
   * environment to be gone, and returns how many are left.
   */
  static int await(String runId, Duration grace) throws InterruptedException {
    long deadline = System.nanoTime() + grace.toNanos();
    int left = count(runId);
    while (left > 0 && System.nanoTime() < deadline) {
      Thread.sleep(100); // polling /proc with a deadline
      left = count(runId);
    }
    return left;
  }

  static int count(String runId) {
    byte[] marker = ("CHAOS_RUN=" + runId).getBytes(StandardCharsets.US_ASCII);
    long self = ProcessHandle.current().pid();
    int count = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path proc : procs.toList()) {
        String name = proc.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit) || Long.parseLong(name) == self) {
          continue;
        }
        try {
          if (contains(Files.readAllBytes(proc.resolve("environ")), marker) && !zombie(proc)) {
            count++;
          }
        } catch (IOException e) {
          // gone meanwhile, or not ours to read
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return count;
  }

  private static boolean zombie(Path proc) throws IOException {
    String stat = Files.readString(proc.resolve("stat"));
    int close = stat.lastIndexOf(')');
    return close > 0 && stat.length() > close + 2 && stat.charAt(close + 2) == 'Z';
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** The candidate whose command wrote the freshest beat, or -1. */
  static int latestBeat(Path dir) {
    long newest = 0;
    int candidate = -1;
    try (Stream<Path> files = Files.list(dir)) {
      for (Path beat : files.filter(p -> p.toString().endsWith(".beat")).toList()) {
        long modified = Files.getLastModifiedTime(beat).toMillis();
        if (modified > newest) {
          String[] start =
              Files.readString(Path.of(beat.toString().replace(".beat", ".start")))
                  .trim()
                  .split(" ");
          newest = modified;
          candidate = Integer.parseInt(start[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return candidate;
  }
}
