package dev.conch;

import java.time.Duration;
import java.util.Objects;

/**
 * One term of leadership of one office by this candidate: what acquire and lose hooks receive.
 *
 * <p>A term handed out by an election knows whether it still holds: {@link #isValid()} turns false
 * once the election stops believing it (its end, or the loss lead before the lease deadline), and
 * {@link #timeToDeadline()} says how long until the lease could expire. A term built with the
 * public constructor (tests, hand-made handlers) is always valid.
 */
public final class Leadership {

  /** Whether a term still holds and how long until its deadline; given by the election. */
  interface Validity {

    /** Whether the election still believes the term. */
    boolean isValid();

    /** Nanoseconds until the lease could expire; 0 or less once it may have. */
    long nanosToDeadline();
  }

  private static final Validity ALWAYS =
      new Validity() {
        @Override
        public boolean isValid() {
          return true;
        }

        @Override
        public long nanosToDeadline() {
          return Long.MAX_VALUE;
        }
      };

  private final String office;
  private final long token;
  private final long lease;
  private final Holder holder;
  private final Validity validity;

  /**
   * A term that is always valid.
   *
   * @param office the office
   * @param token the fencing token: the create revision of this candidate's key; it grows strictly
   *     with each new leader of the office
   * @param lease the lease of the key
   * @param holder this candidate as stored in the key
   */
  public Leadership(String office, long token, long lease, Holder holder) {
    this(office, token, lease, holder, ALWAYS);
  }

  private Leadership(String office, long token, long lease, Holder holder, Validity validity) {
    this.office = office;
    this.token = token;
    this.lease = lease;
    this.holder = holder;
    this.validity = validity;
  }

  /** The same term, valid as {@code validity} says. */
  Leadership boundTo(Validity validity) {
    return new Leadership(office, token, lease, holder, validity);
  }

  /** The office. */
  public String office() {
    return office;
  }

  /**
   * The fencing token: the create revision of this candidate's key; it grows strictly with each new
   * leader of the office.
   */
  public long token() {
    return token;
  }

  /** The lease of the key. */
  public long lease() {
    return lease;
  }

  /** This candidate as stored in the key. */
  public Holder holder() {
    return holder;
  }

  /** The lease as etcd shows it: lowercase hex, unpadded ({@code CONCH_LEASE}). */
  public String leaseHex() {
    return Long.toHexString(lease);
  }

  /**
   * Whether this term still holds: false from the moment the election stops believing it (it ended,
   * or the loss lead before the lease deadline was reached). Work that runs long checks it between
   * steps and stops when it turns false; writes that must not happen twice carry the {@link
   * #token()} instead.
   */
  public boolean isValid() {
    return validity.isValid();
  }

  /**
   * How long until the lease of this term could expire in etcd (the local deadline D); zero once it
   * may have, when a successor may lead.
   */
  public Duration timeToDeadline() {
    long nanos = validity.nanosToDeadline();
    return nanos <= 0 ? Duration.ZERO : Duration.ofNanos(nanos);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Leadership that
        && token == that.token
        && lease == that.lease
        && office.equals(that.office)
        && Objects.equals(holder, that.holder);
  }

  @Override
  public int hashCode() {
    return Objects.hash(office, token, lease, holder);
  }

  @Override
  public String toString() {
    return "Leadership[office=" + office + ", token=" + token + ", lease=" + leaseHex() + "]";
  }
}
