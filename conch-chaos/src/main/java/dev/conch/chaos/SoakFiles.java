package dev.conch.chaos;

import dev.conch.chaos.SoakReport.Interval;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a soak's directory holds, read for its {@link SoakReport}: each command's {@code .start} and
 * {@code .beat} files, and each supervisor's log.
 */
final class SoakFiles {

  /** How far back from a loss {@link #logExcerpt} looks: the renewal budget of a 10 s TTL. */
  static final Duration EXCERPT_BEFORE = Duration.ofSeconds(6);

  /** The most lines {@link #logExcerpt} keeps. */
  static final int EXCERPT_LINES = 12;

  /** A supervisor's log line reporting a loss: the reason in parentheses. */
  private static final Pattern LOST = Pattern.compile("leadership lost \\(([A-Z_]+)\\)");

  private SoakFiles() {}

  /** The commands' lives, from their {@code .start} and {@code .beat} files, by start. */
  static List<Interval> intervals(Path dir) {
    List<Interval> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path start : files.filter(p -> p.toString().endsWith(".start")).toList()) {
        String[] fields = Files.readString(start).trim().split(" ");
        if (fields.length < 4) {
          continue; // killed while writing its first line: it never ran
        }
        Path beat = Path.of(start.toString().replace(".start", ".beat"));
        long begin = Long.parseLong(fields[2]);
        long end = Files.exists(beat) ? Long.parseLong(Files.readString(beat).trim()) : begin;
        found.add(
            new Interval(
                Integer.parseInt(fields[0]),
                Long.parseLong(fields[1]),
                begin,
                end,
                Long.parseLong(fields[3])));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    found.sort(Comparator.comparingLong(Interval::start));
    return found;
  }

  /**
   * The reason the term's supervisor logged for the loss (the first "leadership lost (REASON)" line
   * stamped from 2 s before the command's last beat to 15 s after), or "no reason logged".
   */
  static String lossReason(Path dir, Interval term) {
    Path log = dir.resolve("supervisor-" + term.candidate() + ".log");
    long from = term.end() - 2_000_000_000L;
    long to = term.end() + 15_000_000_000L;
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines
          .filter(line -> line.contains("leadership lost ("))
          .filter(
              line -> {
                long at = stamp(line);
                return at >= from && at <= to;
              })
          .map(LOST::matcher)
          .filter(Matcher::find)
          .map(m -> m.group(1))
          .findFirst()
          .orElse("no reason logged");
    } catch (IOException | UncheckedIOException e) {
      return "no reason logged";
    }
  }

  /**
   * What the term's supervisor warned of in the last {@link #EXCERPT_BEFORE} of the term and the
   * second after it (at most {@link #EXCERPT_LINES} lines, the last ones): the renewal errors
   * behind a needless loss, so that a failed soak in CI says why without the logs it deletes.
   */
  static List<String> logExcerpt(Path dir, Interval term) {
    Path log = dir.resolve("supervisor-" + term.candidate() + ".log");
    long from = term.end() - EXCERPT_BEFORE.toNanos();
    long to = term.end() + 1_000_000_000L;
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      List<String> found =
          lines
              .filter(line -> line.contains(" WARN ") || line.contains(" ERROR "))
              .filter(
                  line -> {
                    long at = stamp(line);
                    return at >= from && at <= to;
                  })
              .toList();
      return found.subList(Math.max(0, found.size() - EXCERPT_LINES), found.size());
    } catch (IOException | UncheckedIOException e) {
      return List.of();
    }
  }

  /** The ISO-8601 instant a log line starts with, in epoch nanoseconds, or -1. */
  private static long stamp(String line) {
    int space = line.indexOf(' ');
    try {
      Instant at = Instant.parse(space > 0 ? line.substring(0, space) : line);
      return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    } catch (DateTimeParseException e) {
      return -1;
    }
  }
}
