package dev.conch;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as operators write them: {@code 500ms}, {@code 10s}, {@code 1m}, {@code 1m30s}. */
public final class Durations {

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|h|m|s)");
  private static final String ACCEPTED =
      "a duration such as 500ms, 10s, 1m, 1m30s or 1h (units h, m, s, ms; no spaces)";

  private Durations() {}

  /**
   * Parses a duration made of one or more {@code <number><unit>} parts, units h, m, s and ms.
   *
   * @param name the setting, named in the error
   * @throws InvalidArgumentException naming the setting, the value and what is accepted
   */
  public static Duration parse(String name, String text) {
    if (text == null || text.isEmpty()) {
      throw new InvalidArgumentException(name, text, ACCEPTED);
    }
    Matcher part = PART.matcher(text);
    Duration total = Duration.ZERO;
    int at = 0;
    while (at < text.length()) {
      if (!part.find(at) || part.start() != at) {
        throw new InvalidArgumentException(name, text, ACCEPTED);
      }
      long amount;
      try {
        amount = Long.parseLong(part.group(1));
      } catch (NumberFormatException e) {
        throw new InvalidArgumentException(name, text, ACCEPTED);
      }
      total =
          total.plus(
              switch (part.group(2)) {
                case "h" -> Duration.ofHours(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "s" -> Duration.ofSeconds(amount);
                default -> Duration.ofMillis(amount);
              });
      at = part.end();
    }
    return total;
  }

  /**
   * Formats a duration the way {@link #parse} reads it: {@code 1m30s}, {@code 500ms}, {@code 0s}.
   */
  public static String format(Duration duration) {
    if (duration.isZero()) {
      return "0s";
    }
    StringBuilder out = new StringBuilder();
    if (duration.isNegative()) {
      out.append('-');
      duration = duration.negated();
    }
    append(out, duration.toHours(), "h");
    append(out, duration.toMinutesPart(), "m");
    append(out, duration.toSecondsPart(), "s");
    append(out, duration.toMillisPart(), "ms");
    return out.toString();
  }

  private static void append(StringBuilder out, long amount, String unit) {
    if (amount > 0) {
      out.append(amount).append(unit);
    }
  }
}
