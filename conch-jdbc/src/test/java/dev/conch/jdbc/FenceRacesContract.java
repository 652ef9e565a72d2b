package dev.conch.jdbc;

import static dev.conch.jdbc.Transactions.failure;
import static dev.conch.jdbc.Transactions.value;
import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The races the fence must win, forced with a second connection and a wait for the other
 * transaction to block on the fence's row (never a sleep), at each isolation level the database is
 * run at: the stale leader's transaction started before, during and after the newer leader's, and
 * the office's first row created by two leaders at once. The stale one must commit entirely before
 * the newer one passes the fence, or fail.
 */
abstract class FenceRacesContract extends FenceTermContract {

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleTransactionThatPassedTheFenceFirstCommitsBeforeTheNewerPasses(int isolation)
      throws Exception {
    String office = newOffice();
    lead(office, STALE, "stale-before");
    Future<Integer> newer;
    try (Connection stale = begin(isolation)) {
      fence.check(stale, office, STALE, "stale");
      write(stale, office, "stale");
      newer = newerLeaderRaisingFirst(office, isolation);
      awaitWaitingOrDone(newer);
      write(stale, office, "stale");
      stale.commit();
      transactions.event("stale committed");
    }
    // What the newer leader saw once it passed is what the database ordered: the stale
    // transaction's commit came first, whole.
    assertThat(value(newer)).as("writes the newer leader saw").isEqualTo(3);
    assertThat(writes(office)).containsExactlyInAnyOrder("stale-before", "stale", "stale", "newer");
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleTransactionStartedBeforeTheNewerCommittedFailsAtTheFence(int isolation)
      throws Exception {
    String office = newOffice();
    lead(office, STALE, "stale-before");
    try (Connection stale = begin(isolation)) {
      // Its snapshot (REPEATABLE READ) is taken here, before the newer leader commits.
      assertThat(probe(stale)).isEqualTo(1);
      lead(office, NEWER, "newer");
      Throwable failure = failureOf(() -> fence.check(stale, office, STALE, "stale"));
      stale.rollback();
      assertStaleRefused(failure, office);
    }
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleTransactionReachingTheFenceWhileTheNewerHoldsItFails(int isolation) throws Exception {
    String office = newOffice();
    lead(office, STALE, "stale-before");
    Future<Void> stale;
    try (Connection newer = begin(isolation)) {
      fence.check(newer, office, NEWER, "newer");
      write(newer, office, "newer");
      stale = staleLeader(office, isolation);
      awaitWaitingOrDone(stale);
      newer.commit();
    }
    assertStaleRefused(failure(stale), office);
    assertThat(writes(office)).containsExactlyInAnyOrder("stale-before", "newer");
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleTransactionStartedAfterTheNewerCommittedFails(int isolation) throws Exception {
    String office = newOffice();
    lead(office, STALE, "stale-before");
    lead(office, NEWER, "newer");
    assertStaleRefused(failure(staleLeader(office, isolation)), office);
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void theFirstRowInsertedByTheStaleLeaderMakesTheNewerWait(int isolation) throws Exception {
    String office = newOffice();
    Future<Void> newer;
    try (Connection stale = begin(isolation)) {
      fence.check(stale, office, STALE, "stale");
      write(stale, office, "stale");
      newer = newerLeader(office, isolation);
      awaitWaitingOrDone(newer);
      stale.commit();
      transactions.event("stale commits");
    }
    assertThat(writes(office)).contains("stale");
    assertNewerPassesAfter(newer, office, isolation);
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void theFirstRowInsertedByTwoLeadersAtOnceLetsNoStaleCommitAfterTheNewerPassed(int isolation)
      throws Exception {
    String office = newOffice();
    CyclicBarrier bothFoundNoRow = new CyclicBarrier(2);
    Future<Void> stale =
        transactions.inThread(() -> fenced(office, STALE, "stale", isolation, bothFoundNoRow));
    Future<Void> newer =
        transactions.inThread(() -> fenced(office, NEWER, "newer", isolation, bothFoundNoRow));
    boolean staleCommitted = ended(stale, office);
    assertNewerPassesAfter(newer, office, isolation);
    List<String> events = transactions.events();
    if (staleCommitted) {
      assertThat(events.indexOf("stale commits"))
          .as("the stale commit comes before the newer leader passed: %s", events)
          .isLessThan(events.indexOf("newer passed"));
      assertThat(writes(office)).containsOnlyOnce("stale");
    } else {
      assertThat(writes(office)).doesNotContain("stale");
    }
  }

  // --- the two leaders

  private Future<Void> newerLeader(String office, int isolation) {
    return transactions.inThread(() -> fenced(office, NEWER, "newer", isolation, null));
  }

  /**
   * The newer leader as conch's Spring fence runs it: the term's raise in a transaction of its own,
   * then a fenced transaction that counts the office's writes it sees and writes its own.
   */
  private Future<Integer> newerLeaderRaisingFirst(String office, int isolation) {
    return transactions.inThread(
        () -> {
          raise(office, NEWER, "newer");
          try (Connection c = begin(isolation)) {
            fence.check(c, office, NEWER, "newer");
            transactions.event("newer passed");
            int seen = writes(c, office);
            write(c, office, "newer");
            c.commit();
            return seen;
          }
        });
  }

  private Future<Void> staleLeader(String office, int isolation) {
    return transactions.inThread(() -> fenced(office, STALE, "stale", isolation, null));
  }

  /** One fenced transaction; notes when it passed the fence and when it commits. */
  private Void fenced(
      String office, long token, String who, int isolation, CyclicBarrier atFirstInsert)
      throws SQLException {
    try (Connection plain = begin(isolation)) {
      Connection c =
          atFirstInsert == null ? plain : Transactions.pausingAtFirstInsert(plain, atFirstInsert);
      try {
        fence.check(c, office, token, who);
        transactions.event(who + " passed");
        write(c, office, who);
        transactions.event(who + " commits");
        c.commit();
      } catch (SQLException | RuntimeException e) {
        plain.rollback();
        throw e;
      }
    }
    return null;
  }

  /**
   * The newer leader either passed, or failed in a way the caller retries (a serialization failure
   * or deadlock at the row the stale one created): then its retry passes.
   */
  private void assertNewerPassesAfter(Future<Void> newer, String office, int isolation)
      throws Exception {
    try {
      newer.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause())
          .isInstanceOfSatisfying(
              SQLException.class,
              sql -> assertThat(isRetryable(sql)).as("retryable: %s", sql).isTrue());
      value(newerLeader(office, isolation));
    }
    try (Connection c = connect()) {
      assertThat(fence.currentToken(c, office)).hasValue(NEWER);
    }
    assertThat(writes(office)).contains("newer");
  }

  /** Whether the stale leader committed; when it failed, it was refused and left nothing. */
  private boolean ended(Future<Void> stale, String office) throws Exception {
    try {
      stale.get(20, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException e) {
      assertStaleRefused(e.getCause(), office);
      return false;
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private static Throwable failureOf(Step step) {
    try {
      step.run();
    } catch (Throwable t) {
      return t;
    }
    throw new AssertionError("the stale transaction passed the fence");
  }

  /** Reads the probe table in {@code c}'s transaction: its snapshot, where it takes one, is now. */
  private static int probe(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        var rows = s.executeQuery("SELECT count(*) FROM snapshot_probe")) {
      rows.next();
      return rows.getInt(1);
    }
  }
}
