package dev.conch;

import java.time.Duration;

/** Checks of the names and durations every part of conch accepts. */
public final class Offices {

  /** The longest office name accepted, in characters. */
  public static final int MAX_NAME_LENGTH = 128;

  /** The shortest lease TTL etcd honours (it raises lower ones silently). */
  public static final Duration MIN_TTL = Duration.ofSeconds(2);

  private Offices() {}

  /**
   * Returns {@code office} when it is a valid office name: not empty, at most {@value
   * #MAX_NAME_LENGTH} characters, no '/', no whitespace or control characters.
   *
   * @throws InvalidArgumentException naming the value and what is accepted
   */
  public static String requireValidName(String office) {
    String accepted =
        "an office name is 1 to "
            + MAX_NAME_LENGTH
            + " characters without '/', whitespace or control characters (e.g. 'billing')";
    if (office == null || office.isEmpty() || office.length() > MAX_NAME_LENGTH) {
      throw new InvalidArgumentException("office", office, accepted);
    }
    for (int i = 0; i < office.length(); i++) {
      char c = office.charAt(i);
      if (c == '/' || Character.isWhitespace(c) || Character.isISOControl(c)) {
        throw new InvalidArgumentException("office", office, accepted);
      }
    }
    return office;
  }

  /**
   * Returns {@code ttl} when it is whole seconds and at least 2 s.
   *
   * @throws InvalidArgumentException naming the value and what is accepted
   */
  public static Duration requireValidTtl(Duration ttl) {
    if (ttl == null || ttl.compareTo(MIN_TTL) < 0 || ttl.getNano() != 0) {
      throw new InvalidArgumentException(
          "ttl", ttl == null ? null : Durations.format(ttl), "whole seconds, at least 2s");
    }
    return ttl;
  }

  /**
   * Returns {@code prefix} when it is an absolute key prefix ending in '/'.
   *
   * @throws InvalidArgumentException naming the value and what is accepted
   */
  public static String requireValidPrefix(String prefix) {
    if (prefix == null || !prefix.startsWith("/") || !prefix.endsWith("/") || prefix.isBlank()) {
      throw new InvalidArgumentException(
          "prefix", prefix, "a key prefix that starts and ends with '/' (e.g. /conch/v1/elect/)");
    }
    return prefix;
  }
}
