package dev.conch;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * One candidate in the election for one office.
 *
 * <p>{@link #start()} joins the election: the candidate campaigns in the background, leads when no
 * candidate is ahead of it, and follows otherwise. While it leads, {@link #token()} is its fencing
 * token. Leadership is believed only while the lease is certainly alive: when renewal fails, the
 * candidate stops leading (lose hooks run) before the lease could expire, and campaigns again once
 * it can. Obtain one from {@code EtcdSession#election} or, in unit tests, from {@code
 * LocalOffices#election}.
 */
public interface Election extends AutoCloseable {

  /** The office this candidate campaigns for. */
  String office();

  /** This candidate as it is stored in its key (no revision before it campaigned). */
  Holder candidate();

  /**
   * Joins the election and campaigns in the background; does nothing when already running. After
   * {@link #resign()} it joins again; a resignation still under way ({@link #resignAsync()}) is
   * waited for first, as long as a resignation may take (every lose hook's timeout and the
   * release).
   *
   * @throws ElectionClosedException when closed
   * @throws ConchException when a resignation is still under way after that: nothing was started
   */
  void start();

  /** The current state; never {@link State#LEADING} once the term is over. */
  State state();

  /** Whether this candidate leads now (its lease is certainly alive). */
  boolean isLeader();

  /** The fencing token while this candidate leads, else empty. */
  OptionalLong token();

  /** The current term of leadership while this candidate leads, else empty. */
  Optional<Leadership> leadership();

  /**
   * Who leads the office now, read from the store (not a cache); empty when vacant.
   *
   * @throws EtcdUnavailableException when the store cannot be read in time
   */
  Optional<Holder> leader();

  /**
   * Waits until this candidate leads, at most {@code timeout}.
   *
   * @return whether it leads
   */
  boolean awaitLeadership(Duration timeout) throws InterruptedException;

  /**
   * Leaves the election: stops leading (lose hooks run, the key is deleted so that the next
   * candidate leads at once) or stops campaigning. Returns when done, bounded by the hook and store
   * timeouts. A follower's key is withdrawn as soon as etcd answers the request under way (never
   * while a put may still be on its way): it can outlive this call by one request, and a reader of
   * the line just after it may still see this candidate, who can no longer win.
   */
  void resign();

  /**
   * {@link #resign()} without waiting: the future completes when it would have returned (lose hooks
   * run, key released). For leaving many offices at once; a candidate that is not in the election
   * gets a completed future.
   */
  default CompletableFuture<Void> resignAsync() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                resign();
                done.complete(null);
              } catch (RuntimeException | Error e) {
                done.completeExceptionally(e);
              }
            },
            "conch-resign-" + office());
    thread.setDaemon(true);
    thread.start();
    return done;
  }

  /**
   * {@link #resign()}, saying why: the office's history records {@code why} as what ended the term
   * (for example "by an operator through the actuator endpoint").
   */
  default void resign(String why) {
    resign();
  }

  /** {@link #resignAsync()}, saying why, as {@link #resign(String)} does. */
  default CompletableFuture<Void> resignAsync(String why) {
    return resignAsync();
  }

  /**
   * {@link #transfer(String)}, saying why: the office's history records {@code why} beside the
   * target (for example "fair share: 3 offices here, 1 there").
   */
  default void transfer(String candidateId, String why) {
    transfer(candidateId);
  }

  /**
   * Hands the office to whichever of {@code candidateIds} stands first in its line behind this
   * leader, as {@link #transfer(String)} does: the fewest candidates are passed (none, when one of
   * them is next). An office group uses it to give an office to any of the members it owes one. The
   * line is read once, as for {@link #transfer(String)}; a store that cannot tell the order hands
   * to the first of the list.
   *
   * @param candidateIds the {@link Holder#id()}s of the candidates that may take it, at least one
   * @param why what the office's history records beside the target
   * @return the id of the candidate it was handed to
   * @throws NotLeaderException when this candidate does not lead
   * @throws TransferRefusedException when none of them is a live candidate of the office, or a
   *     candidate that cannot cooperate stands between this leader and the first of them
   */
  default String transferToFirst(List<String> candidateIds, String why) {
    String first = candidateIds.get(0);
    transfer(first, why);
    return first;
  }

  /**
   * The office's last {@code limit} terms as its history in the store keeps them, oldest first: who
   * led, with which token, from when, and when and how each term ended (DESIGN.md, "The flight
   * recorder"). Empty when the store keeps no history or the office never had a recorded term.
   *
   * @param limit how many of the last terms, at least 1
   * @throws EtcdUnavailableException when the store cannot be read in time
   */
  default List<TermRecord> history(int limit) {
    return List.of();
  }

  /**
   * Hands the office over: stops leading and campaigns again at the back of the queue. Returns when
   * leadership was given up.
   *
   * @throws NotLeaderException when this candidate does not lead
   */
  void transfer();

  /**
   * Hands the office to the named candidate: stops leading as a resign does (lose hooks run), then,
   * in one etcd transaction that only this leader's key can make succeed, deletes this leader's key
   * and the keys of the candidates that stand between it and {@code candidateId}, so that the
   * target leads next and nobody leads in between. The candidates that stood between queue again at
   * the back; this candidate queues again at the back too. Returns when leadership was given up.
   *
   * <p>The target and the keys between are checked against one read of the office's line before
   * anything changes. If the line changed by the time the lose hooks have run (a candidate between
   * left, the target queued again), it is read again and the hand-over tried once more; if the
   * target is gone by then, or that fails too, the office is released plainly, as by {@link
   * #resign()}: the next in line leads, and this candidate queues again. Both are logged.
   *
   * @param candidateId the {@link Holder#id()} of a live candidate of this office
   * @throws NotLeaderException when this candidate does not lead
   * @throws TransferRefusedException when the target is not a live candidate of the office, or a
   *     candidate that cannot cooperate (a key not written by conch, such as an {@code etcdctl
   *     elect} proposal) stands between: nothing changed, this candidate still leads
   */
  void transfer(String candidateId);

  /**
   * Writes {@code value} at {@code key} in the store only if this candidate still leads with its
   * token: one etcd transaction, {@code If(CreateRevision(own key) == token) Then Put(key, value)},
   * so that etcd itself refuses the write of a leader whose term has ended.
   *
   * @return whether the write happened
   * @throws NotLeaderException when this candidate does not lead
   * @throws EtcdUnavailableException when the store cannot be reached in time
   */
  boolean guardedPut(String key, String value);

  /**
   * Adds acquire and lose hooks, run synchronously on each transition (see {@link
   * LeadershipHandler}).
   */
  void addHandler(LeadershipHandler handler);

  /**
   * Adds a listener of events.
   *
   * @return closing it removes the listener
   */
  AutoCloseable addListener(ElectionListener listener);

  /** How many events were dropped because the listeners' buffer was full. */
  long droppedEvents();

  /** Resigns and releases every resource of this candidate; it cannot be started again. */
  @Override
  void close();
}
