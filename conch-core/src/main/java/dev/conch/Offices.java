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
    return Setting.OFFICE.require(office);
  }

  /**
   * Returns {@code ttl} when it is whole seconds and at least 2 s.
   *
   * @throws InvalidArgumentException naming the value and what is accepted
   */
  public static Duration requireValidTtl(Duration ttl) {
    return Setting.TTL.require(ttl);
  }

  /**
   * Returns {@code prefix} when it is an absolute key prefix ending in '/'.
   *
   * @throws InvalidArgumentException naming the value and what is accepted
   */
  public static String requireValidPrefix(String prefix) {
    return Setting.PREFIX.require(prefix);
  }
}
