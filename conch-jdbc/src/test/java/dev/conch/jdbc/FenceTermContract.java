package dev.conch.jdbc;

import static dev.conch.jdbc.Transactions.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.conch.Holder;
import dev.conch.Leadership;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A term's life in the fence table, where user code misbehaves and terms follow each other: the
 * raise in a transaction of its own (the new term reads what the old one committed, whether it
 * fences first or last; it waits only for the old term's transactions in flight when it began), a
 * check just before commit that holds whatever the transaction caught before it, and the lock-wait
 * timeout.
 */
abstract class FenceTermContract extends FenceContract {

  /** The JDBC isolation levels to run each race at. */
  abstract List<Integer> isolationLevels();

  /** How a database queues lock requests: whether a raise waits behind later shared requests. */
  boolean queuesLockRequestsInOrder() {
    return true;
  }

  @BeforeAll
  void createDeadlockTable() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE deadlock_row (id VARCHAR(64) NOT NULL PRIMARY KEY, n INT NOT NULL)");
    }
  }

  static Leadership term(String office, long token, String who) {
    return new Leadership(office, token, 0, Holder.of(office, "host", 1, null, who));
  }

  /** Raises {@code office} to {@code token} in a transaction of its own; the earlier token. */
  long raise(String office, long token, String who) throws SQLException {
    try (Connection c = connect()) {
      return fence.raise(c, term(office, token, who));
    }
  }

  @Test
  void aRaiseReturnsTheEarlierTokenAndLeavesTheConnectionAsItWas() throws SQLException {
    String office = newOffice();
    assertThat(raise(office, STALE, "stale")).isZero();
    assertThat(raise(office, STALE, "stale")).isEqualTo(STALE);
    try (Connection c = connect()) {
      int isolation = c.getTransactionIsolation();
      assertThat(fence.raise(c, term(office, NEWER, "newer"))).isEqualTo(STALE);
      assertThat(c.getAutoCommit()).isTrue();
      assertThat(c.getTransactionIsolation()).isEqualTo(isolation);
      assertThat(fence.currentToken(c, office)).hasValue(NEWER);
    }
    assertThatThrownBy(() -> raise(office, STALE, "stale"))
        .isInstanceOfSatisfying(
            StaleTokenException.class, e -> assertThat(e.currentToken()).isEqualTo(NEWER));
  }

  @Test
  void aRaiseInsideATransactionIsRefusedAndCommitsNothing() throws SQLException {
    String office = newOffice();
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      write(c, office, "caller");
      assertThatThrownBy(() -> fence.raise(c, term(office, NEWER, "newer")))
          .isInstanceOf(dev.conch.InvalidArgumentException.class)
          .hasMessageContaining("autocommit");
      c.rollback();
    }
    assertThat(writes(office)).isEmpty();
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void theNewTermReadsEverythingTheOldTermCommittedWhetherItFencesFirstOrLast(int isolation)
      throws Exception {
    for (boolean fenceFirst : new boolean[] {true, false}) {
      String office = newOffice();
      lead(office, STALE, "stale-before");
      Future<Long> raised;
      try (Connection stale = begin(isolation)) {
        fence.check(stale, office, STALE, "stale");
        raised = transactions.inThread(() -> raise(office, NEWER, "newer"));
        awaitWaitingOrDone(raised);
        assertThat(raised).isNotDone();
        write(stale, office, "stale-last");
        stale.commit();
      }
      assertThat(value(raised)).isEqualTo(STALE);
      try (Connection newer = begin(isolation)) {
        if (fenceFirst) {
          fence.check(newer, office, NEWER, "newer");
        }
        assertThat(writes(newer, office)).as("fence first: %s", fenceFirst).isEqualTo(2);
        if (!fenceFirst) {
          fence.check(newer, office, NEWER, "newer");
        }
        newer.commit();
      }
    }
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aRaiseWaitsOnlyForTheTransactionsThatHeldTheFenceWhenItBegan(int isolation)
      throws Exception {
    assumeTrue(queuesLockRequestsInOrder(), "a database that serves lock requests in order");
    String office = newOffice();
    lead(office, STALE, "stale-before");
    // The measured raise must not be the JVM's first: a cold raise (classes, the dialect, the
    // driver's first statements) can take longer than a stale transaction, and checks that pass
    // before it asks for the fence jump no queue.
    raise(newOffice(), STALE, "warm-up");
    int workers = 8;
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger passed = new AtomicInteger();
    AtomicLong raiseBegan = new AtomicLong(Long.MAX_VALUE);
    AtomicInteger passedAfterRaiseBegan = new AtomicInteger();
    CountDownLatch allHolding = new CountDownLatch(workers);
    List<Future<Void>> stale = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      stale.add(
          transactions.inThread(
              () -> {
                boolean first = true;
                while (!stop.get()) {
                  try (Connection c = begin(isolation)) {
                    fence.check(c, office, STALE, "stale");
                    long at = System.nanoTime();
                    if (at > raiseBegan.get()) {
                      passedAfterRaiseBegan.incrementAndGet();
                    }
                    passed.incrementAndGet();
                    if (first) {
                      allHolding.countDown();
                      first = false;
                    }
                    Thread.sleep(20); // the stale term's work, holding the fence
                    write(c, office, "stale");
                    c.commit();
                  } catch (StaleTokenException | SQLException e) {
                    if (e instanceof StaleTokenException || isRetryable((SQLException) e)) {
                      continue; // refused, or a retry; the loop ends with stop
                    }
                    throw e;
                  }
                }
                return null;
              }));
    }
    assertThat(allHolding.await(20, TimeUnit.SECONDS)).isTrue();
    long earlier;
    try (Connection c = connect()) {
      // From here on: opening the raise's connection (tens of ms on a busy machine) is not asking
      // for the fence, and stale checks that passed meanwhile jumped no queue.
      raiseBegan.set(System.nanoTime());
      earlier = fence.raise(c, term(office, NEWER, "newer"));
    }
    stop.set(true);
    for (Future<Void> worker : stale) {
      value(worker);
    }
    assertThat(earlier).isEqualTo(STALE);
    // A stale transaction that passed after the raise had asked for the fence would be one that
    // jumped the queue; one check per worker may have been on its way when the raise began.
    assertThat(passedAfterRaiseBegan.get())
        .as("stale checks passed after the raise began (of %d)", passed.get())
        .isLessThanOrEqualTo(workers);
    try (Connection c = connect()) {
      assertThat(fence.currentToken(c, office)).hasValue(NEWER);
    }
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void twoFirstTransactionsOfANewTermRaiseAtOnceWithoutADeadlock(int isolation) throws Exception {
    String office = newOffice();
    lead(office, STALE, "stale-before");
    Future<Long> one;
    Future<Long> two;
    try (Connection stale = begin(isolation)) {
      fence.check(stale, office, STALE, "stale");
      one = transactions.inThread(() -> raise(office, NEWER, "newer-1"));
      two = transactions.inThread(() -> raise(office, NEWER, "newer-2"));
      awaitWaitingOrDone(two);
      stale.commit();
    }
    assertThat(List.of(value(one), value(two))).containsExactlyInAnyOrder(STALE, NEWER);
    for (String who : List.of("newer-1", "newer-2")) {
      try (Connection c = begin(isolation)) {
        fence.check(c, office, NEWER, who);
        write(c, office, who);
        c.commit();
      }
    }
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void staleTransactionsRefusedAtOnceAreRefusedByNameNotByADeadlockAmongThem(int isolation)
      throws Exception {
    String office = newOffice();
    raise(office, STALE, "stale");
    raise(office, NEWER, "newer");
    int stale = 8;
    java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(stale);
    List<Future<Throwable>> refusals = new ArrayList<>();
    for (int i = 0; i < stale; i++) {
      refusals.add(
          transactions.inThread(
              () -> {
                try (Connection c = begin(isolation)) {
                  together.await(10, TimeUnit.SECONDS);
                  try {
                    fence.check(c, office, STALE, "stale");
                    return null;
                  } catch (StaleTokenException | SQLException e) {
                    return e;
                  } finally {
                    c.rollback();
                  }
                }
              }));
    }
    for (Future<Throwable> refusal : refusals) {
      // A stale leader that retries on 40001 would retry forever if refusals deadlocked.
      assertThat(refusal.get(20, TimeUnit.SECONDS)).isInstanceOf(StaleTokenException.class);
    }
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aThirdLeaderRefusesBothEarlierTerms(int isolation) throws Exception {
    String office = newOffice();
    raise(office, 1, "first");
    raise(office, 2, "second");
    raise(office, 3, "third");
    for (long token : new long[] {1, 2}) {
      try (Connection c = begin(isolation)) {
        write(c, office, "stale");
        Throwable refused = failureOf(c, () -> fence.check(c, office, token, "old"));
        c.rollback();
        assertThat(refused)
            .isInstanceOfSatisfying(
                StaleTokenException.class, e -> assertThat(e.currentToken()).isEqualTo(3));
      }
    }
    assertThatThrownBy(() -> raise(office, 2, "second")).isInstanceOf(StaleTokenException.class);
    assertThat(writes(office)).isEmpty();
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aCheckJustBeforeCommitHoldsWhatASwallowedDeadlockLeftUnfenced(int isolation)
      throws Exception {
    for (boolean staleWaitsFirst : new boolean[] {true, false}) {
      String office = newOffice();
      lead(office, STALE, "stale-before");
      String[] rows = {office + "-a", office + "-b"};
      try (Connection c = connect();
          PreparedStatement insert =
              c.prepareStatement("INSERT INTO deadlock_row (id, n) VALUES (?, 0)")) {
        for (String row : rows) {
          insert.setString(1, row);
          insert.executeUpdate();
        }
      }
      try (Connection stale = begin(isolation);
          Connection other = begin(isolation)) {
        fence.check(stale, office, STALE, "stale");
        // A deadlock between the stale transaction and another: each locks one row, then wants
        // the other's. The database picks the victim (PostgreSQL the first waiter, InnoDB the
        // lighter one): both orders run.
        Connection first = staleWaitsFirst ? stale : other;
        Connection second = staleWaitsFirst ? other : stale;
        touch(first, rows[0]);
        touch(second, rows[1]);
        Future<SQLException> firstWaits =
            transactions.inThread(() -> touchCatching(first, rows[1]));
        awaitWaitingOrDone(firstWaits);
        SQLException secondFailed = touchCatching(second, rows[0]);
        SQLException firstFailed = firstWaits.get(20, TimeUnit.SECONDS);
        assertThat(secondFailed != null || firstFailed != null).as("a deadlock victim").isTrue();
        if ((other == second ? secondFailed : firstFailed) == null) {
          other.commit();
        } else {
          other.rollback();
        }
        // The stale transaction swallows whatever it got and goes on: on InnoDB and H2 a deadlock
        // rolled back its whole transaction (and the fence's lock), and its next statements run
        // in a new one. The newer leader's raise then does not wait for it.
        assertRefusedOrCommittedBeforeTheRaise(stale, office);
      }
    }
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aCheckJustBeforeCommitHoldsAfterASavepointUndidAnEarlierOne(int isolation) throws Exception {
    String office = newOffice();
    lead(office, STALE, "stale-before");
    try (Connection stale = begin(isolation)) {
      Savepoint nested = stale.setSavepoint();
      fence.check(stale, office, STALE, "stale");
      stale.rollback(nested); // undoes the fence's lock with the savepoint's work
      assertRefusedOrCommittedBeforeTheRaise(stale, office);
    }
  }

  /**
   * The newer leader raises beside {@code stale}, which then writes and checks just before its
   * commit: when the raise did not have to wait for it (the stale transaction no longer held the
   * fence), the check refuses and nothing of it commits; when the raise waits, the stale
   * transaction commits first.
   */
  private void assertRefusedOrCommittedBeforeTheRaise(Connection stale, String office)
      throws Exception {
    Future<Long> raised = transactions.inThread(() -> raise(office, NEWER, "newer"));
    awaitWaitingOrDone(raised);
    boolean raiseDone = raised.isDone();
    boolean committed = false;
    try {
      write(stale, office, "stale-after");
      fence.check(stale, office, STALE, "stale");
      stale.commit();
      committed = true;
    } catch (StaleTokenException | SQLException refused) {
      stale.rollback();
    }
    assertThat(value(raised)).isEqualTo(STALE);
    if (raiseDone) {
      assertThat(committed).as("a stale commit after the newer leader's raise").isFalse();
      assertThat(writes(office)).doesNotContain("stale-after");
    }
    try (Connection newer = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      fence.check(newer, office, NEWER, "newer");
      assertThat(writes(newer, office)).isEqualTo(committed ? 2 : 1);
      newer.commit();
    }
  }

  @Test
  void aLockWaitPastTheTimeoutIsAFenceTimeout() throws Exception {
    String office = newOffice();
    lead(office, STALE, "stale-before");
    try (Connection stale = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      fence.check(stale, office, STALE, "stale");
      try (Connection newer = connect()) {
        if (dialect() == FenceDialect.H2) {
          // H2 does not cancel a statement that waits for a row lock: its own lock timeout does.
          try (Statement s = newer.createStatement()) {
            s.execute("SET LOCK_TIMEOUT 1000");
          }
        }
        assertThatThrownBy(
                () -> fence.raise(newer, term(office, NEWER, "newer"), Duration.ofSeconds(1)))
            .isInstanceOfSatisfying(
                FenceTimeoutException.class,
                e -> {
                  assertThat(e.office()).isEqualTo(office);
                  assertThat(e.getMessage()).contains("timed out waiting for its lock");
                });
        assertThat(newer.getAutoCommit()).isTrue();
      }
      stale.commit();
    }
    assertThat(raise(office, NEWER, "newer")).isEqualTo(STALE);
  }

  private static void touch(Connection c, String row) throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement("UPDATE deadlock_row SET n = n + 1 WHERE id = ?")) {
      update.setString(1, row);
      update.executeUpdate();
    }
  }

  private static SQLException touchCatching(Connection c, String row) {
    try {
      touch(c, row);
      return null;
    } catch (SQLException e) {
      return e;
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private static Throwable failureOf(Connection c, Step step) {
    try {
      step.run();
    } catch (Throwable t) {
      return t;
    }
    throw new AssertionError("the stale transaction passed the fence");
  }

  static int count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        var rows = s.executeQuery(sql)) {
      rows.next();
      return rows.getInt(1);
    }
  }
}
