package dev.conch;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

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

    /** Registers leader-only work on the calling thread; empty once the term takes none. */
    Optional<Work> startWork(String name);

    /** Whether no leader-only work of the term runs now. */
    boolean isIdle();
  }

  /**
   * A call of leader-only work registered with its term ({@link #startWork}): the term's stop waits
   * for it until it is {@link #close() closed}. Close it in a {@code finally}, on any thread.
   */
  public interface Work extends AutoCloseable {

    /**
     * Whether the term's stop interrupted the call: it still ran when the stop's bound (the stop
     * timeout, or the safety margin before the lease deadline) was reached.
     */
    boolean interrupted();

    /** The call has returned: the term's stop no longer waits for it. */
    @Override
    void close();
  }

  /** Work of a term that never ends: nothing waits for it, and nothing interrupts it. */
  private static final Work UNTRACKED =
      new Work() {
        @Override
        public boolean interrupted() {
          return false;
        }

        @Override
        public void close() {}
      };

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

        @Override
        public Optional<Work> startWork(String name) {
          return Optional.of(UNTRACKED);
        }

        @Override
        public boolean isIdle() {
          return true;
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

  /**
   * Registers leader-only work of this term that runs now, on the calling thread: every way the
   * term ends (resign, hand-over, shutdown, a health gate, the balancer, a lost lease) first takes
   * no new work, then waits for the registered work to return, bounded by the office's stop timeout
   * (and, after an involuntary loss, by the safety margin before the lease deadline), interrupts
   * what still runs at that bound, and only then runs the lose hooks and releases the key. So a
   * successor never leads while this work runs, except where a bound was hit; that is logged with
   * the work's name. {@code @LeaderOnly} methods and {@code LeaderOnlyTasks} register themselves.
   *
   * <pre>{@code
   * Optional<Leadership.Work> work = term.startWork("nightly-report");
   * if (work.isEmpty()) return;              // the term is ending: do not start
   * try (Leadership.Work running = work.get()) {
   *   report();
   * }
   * }</pre>
   *
   * @param name how logs and meters name the work: a few fixed names, not one per run
   * @return the registration, to close when the work returns; empty when the term has begun to stop
   *     (the work must not start)
   */
  public Optional<Work> startWork(String name) {
    return validity.startWork(Objects.requireNonNull(name, "name"));
  }

  /**
   * Whether no registered leader-only work of this term runs now ({@link #startWork}): a stop now
   * would not wait.
   */
  public boolean isIdle() {
    return validity.isIdle();
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
