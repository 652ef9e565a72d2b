package dev.conch.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Measured hand-over times, printed and appended to {@code target/e2e-figures.txt} so that a run's
 * figures can be read without digging through the test output.
 */
final class Figures {

  private static final Path FILE = Path.of("target", "e2e-figures.txt");

  private Figures() {}

  static void record(String line) {
    System.out.println(line);
    try {
      Files.writeString(FILE, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
