package dev.conch.jdbc.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load averages, as {@code uptime} prints them. */
final class Load {

  private Load() {}

  /** The 1, 5 and 15 minute load averages from /proc/loadavg, or "?" where there is none. */
  static String now() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }
}
