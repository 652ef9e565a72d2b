package dev.conch.jdbc;

import static dev.conch.jdbc.Transactions.failure;
import static dev.conch.jdbc.Transactions.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fence column on a real database: the trigger of {@link FenceSchema#columnTrigger} refuses a
 * stale or missing token in the write itself, raises the fence table for a newer one, and wins the
 * races of {@link FenceRacesContract} (forced with a second connection and a wait until the other
 * session blocks in a lock) at each isolation level; the guard keeps the fence table from being
 * deleted or lowered. A stale leader writes token {@link #STALE}, the newer one {@link #NEWER}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
abstract class FenceColumnContract {

  static final long STALE = 5;
  static final long NEWER = 7;

  final FenceSchema schema = FenceSchema.create();
  final JdbcFence fence = JdbcFence.create();
  Transactions transactions;
  private final AtomicInteger tables = new AtomicInteger();

  /** A new connection to the database under test, autocommit on. */
  abstract Connection connect() throws SQLException;

  /** The dialect the database speaks. */
  abstract FenceDialect dialect();

  /** How many sessions wait for a lock right now (one count column). */
  abstract String waitingSessionsQuery();

  /** How often {@link #waitingSessionsQuery()} may be asked; some databases cache its answer. */
  Duration waitingPollInterval() {
    return Duration.ofMillis(10);
  }

  /** The JDBC isolation levels to run each race at. */
  abstract List<Integer> isolationLevels();

  /**
   * The trigger's first step, taken by hand: what a transaction holds once its write has read the
   * office's (missing) row in the steady state (one parameter, the office).
   */
  abstract String steadyStateLock();

  /** A fenced table of its own for one test, and its office. */
  record Fenced(String table, String office) {}

  @BeforeAll
  void createTables() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(dialect().createTableStatement(JdbcFence.DEFAULT_TABLE));
      schema.installGuard(c);
      schema.installGuard(c); // a second time changes nothing
      s.execute("CREATE TABLE snapshot_probe (n INT NOT NULL)");
      s.execute("INSERT INTO snapshot_probe (n) VALUES (1)");
    }
  }

  @BeforeEach
  void startThreads() {
    transactions = new Transactions();
  }

  @AfterEach
  void stopThreads() {
    transactions.close();
  }

  // --- the column

  @Test
  void aTermWritesAgainAndAgainAndANewerTermRaisesTheFence() throws SQLException {
    Fenced t = newTable();
    write(t, STALE, "stale");
    write(t, STALE, "stale");
    assertThat(token(t.office())).isEqualTo(STALE);
    write(t, NEWER, "newer");
    write(t, NEWER, "newer");
    assertThat(token(t.office())).isEqualTo(NEWER);
    assertThat(writes(t)).containsExactlyInAnyOrder("stale", "stale", "newer", "newer");
  }

  @Test
  void anOlderTokenIsRefusedWithTheOfficeAndTheNewerTokenAndHolderNamed() throws SQLException {
    Fenced t = newTable();
    write(t, NEWER, "newer");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      SQLException refused = refusedWrite(c, t, STALE, "stale");
      assertThat(refused.getSQLState()).isEqualTo(FenceSchema.STALE_TOKEN_SQLSTATE);
      assertThat((Throwable) refused)
          .hasMessageContaining("stale fencing token 5 for office '" + t.office());
      assertThat(FenceSchema.staleToken(new RuntimeException("wrapped", refused)))
          .hasValueSatisfying(
              e -> {
                assertThat(e.office()).isEqualTo(t.office());
                assertThat(e.token()).isEqualTo(STALE);
                assertThat(e.currentToken()).isEqualTo(NEWER);
                assertThat(e.currentHolder()).isNotBlank();
                assertThat(e).hasCause(refused);
              });
      c.rollback();
    }
    assertThat(FenceSchema.staleToken(new SQLException("other", "23505"))).isEmpty();
    assertThat(writes(t)).containsExactly("newer");
  }

  @Test
  void aRefusalNamesAnOfficeOf128CharactersInFull() throws SQLException {
    String office = "o".repeat(118) + "'\\-" + tables.incrementAndGet();
    Fenced t = new Fenced("fenced_long_" + tables.get(), office);
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + t.table() + " (who VARCHAR(32), fence_token BIGINT)");
      schema.installColumnTrigger(c, t.table(), "fence_token", office);
    }
    write(t, NEWER, "newer");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      assertThat(FenceSchema.staleToken(refusedWrite(c, t, STALE, "stale")))
          .hasValueSatisfying(
              e -> {
                assertThat(e.office()).isEqualTo(office);
                assertThat(e.currentToken()).isEqualTo(NEWER);
              });
      c.rollback();
    }
  }

  @Test
  void aRowWithoutATokenIsRefused() throws SQLException {
    Fenced t = newTable();
    write(t, STALE, "stale");
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      assertThatThrownBy(() -> s.executeUpdate("INSERT INTO " + t.table() + " (who) VALUES ('x')"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.MISSING_TOKEN_SQLSTATE))
          .hasMessageContaining("carries no fencing token for office '" + t.office() + "'")
          .hasMessageContaining("fence_token is NULL");
      assertThatThrownBy(
              () -> s.executeUpdate("UPDATE " + t.table() + " SET fence_token = NULL, who = 'x'"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.MISSING_TOKEN_SQLSTATE));
    }
    assertThat(writes(t)).containsExactly("stale");
  }

  @Test
  void anUpdateThatKeepsTheCurrentTokenPassesAndMovesNothing() throws SQLException {
    Fenced t = newTable();
    write(t, NEWER, "newer");
    Object raisedAt = fenceRow(t.office()).get(2);
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED);
        Statement s = c.createStatement()) {
      assertThat(s.executeUpdate("UPDATE " + t.table() + " SET who = 'renamed'")).isEqualTo(1);
      c.commit();
    }
    assertThat(writes(t)).containsExactly("renamed");
    assertThat(fenceRow(t.office())).containsExactly(NEWER, fenceRow(t.office()).get(1), raisedAt);
  }

  @Test
  void anUpdateThatKeepsAStaleTokenIsAStaleWrite() throws SQLException {
    // A write of the old leader that does not set the column keeps the row's old token: it does
    // not say its term, so it is judged by the token it keeps.
    Fenced t = newTable();
    write(t, STALE, "stale");
    write(t, NEWER, "newer");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED);
        Statement s = c.createStatement()) {
      assertThatThrownBy(
              () -> s.executeUpdate("UPDATE " + t.table() + " SET who = 'x' WHERE who = 'stale'"))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(FenceSchema.staleToken(e)).isPresent());
      c.rollback();
    }
    assertThat(writes(t)).containsExactlyInAnyOrder("stale", "newer");
  }

  @Test
  void writesOfOneTermDoNotQueueBehindEachOther() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        dialect() != FenceDialect.H2, "H2 has no shared row lock: its trigger reads FOR UPDATE");
    Fenced t = newTable();
    write(t, STALE, "first");
    try (Connection first = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      insert(first, t, STALE, "first");
      // The second writes and commits while the first is still open: value() fails if it waits.
      value(
          transactions.inThread(
              () -> {
                try (Connection second = begin(Connection.TRANSACTION_READ_COMMITTED)) {
                  insert(second, t, STALE, "second");
                  second.commit();
                }
                return null;
              }));
      first.commit();
    }
  }

  @Test
  void anOfficeColumnFencesEachRowByItsOwnOffice() throws SQLException {
    String table = "by_office_" + tables.incrementAndGet();
    String billing = getClass().getSimpleName() + "-billing";
    String reports = getClass().getSimpleName() + "-reports";
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE " + table + " (office VARCHAR(128), who VARCHAR(32), fence_token BIGINT)");
      schema.installOfficeColumnTrigger(c, table, "fence_token", "office");
      String insert = "INSERT INTO " + table + " (office, who, fence_token) VALUES ";
      s.executeUpdate(insert + "('" + billing + "', 'b', 7)");
      s.executeUpdate(insert + "('" + reports + "', 'r', 3)");
      assertThatThrownBy(() -> s.executeUpdate(insert + "('" + billing + "', 'b', 5)"))
          .satisfies(
              e ->
                  assertThat(FenceSchema.staleToken(e))
                      .hasValueSatisfying(stale -> assertThat(stale.office()).isEqualTo(billing)));
      s.executeUpdate(insert + "('" + reports + "', 'r', 4)");
      assertThatThrownBy(() -> s.executeUpdate(insert + "(NULL, 'r', 4)"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.MISSING_TOKEN_SQLSTATE));
    }
    assertThat(token(billing)).isEqualTo(7);
    assertThat(token(reports)).isEqualTo(4);
  }

  @Test
  void theCheckFormPassesOnTheSameTableWithTheGuardInstalled() throws SQLException {
    Fenced t = newTable();
    write(t, STALE, "stale");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      fence.check(c, t.office(), NEWER, "checked");
      c.commit();
    }
    assertThat(token(t.office())).isEqualTo(NEWER);
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      assertThatThrownBy(() -> fence.check(c, t.office(), STALE, "stale"))
          .isInstanceOf(StaleTokenException.class);
      c.rollback();
    }
  }

  @Test
  void installingTheTriggerAgainReplacesIt() throws SQLException {
    Fenced t = newTable();
    try (Connection c = connect()) {
      schema.installColumnTrigger(c, t.table(), "fence_token", t.office());
    }
    write(t, NEWER, "newer");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      assertThat(FenceSchema.staleToken(refusedWrite(c, t, STALE, "stale"))).isPresent();
      c.rollback();
    }
  }

  // --- the races

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleColumnWriteInFlightMakesANewerCheckFormRaiseWaitAndCommitsFirst(int isolation)
      throws Exception {
    Fenced t = newTable();
    write(t, STALE, "stale-before");
    JdbcFence check = JdbcFence.create();
    Future<Long> raised;
    try (Connection stale = begin(isolation)) {
      insert(stale, t, STALE, "stale-first");
      raised =
          transactions.inThread(
              () -> {
                try (Connection c = connect()) {
                  return check.raise(c, t.office(), NEWER, "newer");
                }
              });
      awaitWaitingOrDone(raised);
      assertThat(raised).isNotDone();
      stale.commit();
    }
    assertThat(value(raised)).isEqualTo(STALE);
    assertStaleRefused(refusedWriteAlone(t, STALE, "stale"), t);
    assertThat(writes(t)).containsExactlyInAnyOrder("stale-before", "stale-first");
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleCheckFormTransactionInFlightMakesANewerColumnWriteWaitAndCommitsFirst(int isolation)
      throws Exception {
    Fenced t = newTable();
    write(t, STALE, "stale-before");
    JdbcFence check = JdbcFence.create();
    Future<Void> newer;
    try (Connection stale = begin(isolation)) {
      check.check(stale, t.office(), STALE, "stale");
      newer = leader(t, NEWER, "newer", isolation, null);
      awaitWaitingOrDone(newer);
      assertThat(newer).isNotDone();
      stale.commit();
      transactions.event("stale committed");
    }
    value(newer);
    try (Connection c = begin(isolation)) {
      Throwable refused = null;
      try {
        check.check(c, t.office(), STALE, "stale");
      } catch (StaleTokenException e) {
        refused = e;
      }
      c.rollback();
      assertThat(refused).isInstanceOf(StaleTokenException.class);
    }
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleTransactionThatWroteFirstCommitsBeforeTheNewerPasses(int isolation) throws Exception {
    Fenced t = newTable();
    write(t, STALE, "stale-before");
    try (Connection stale = begin(isolation)) {
      insert(stale, t, STALE, "stale");
      Future<Void> newer = leader(t, NEWER, "newer", isolation, null);
      awaitWaitingOrDone(newer);
      insert(stale, t, STALE, "stale");
      transactions.event("stale commits");
      stale.commit();
      value(newer);
    }
    assertThat(transactions.events()).startsWith("stale commits", "newer passed");
    assertThat(writes(t)).containsExactlyInAnyOrder("stale-before", "stale", "stale", "newer");
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleTransactionStartedBeforeTheNewerCommittedIsRefused(int isolation) throws Exception {
    Fenced t = newTable();
    write(t, STALE, "stale-before");
    try (Connection stale = begin(isolation)) {
      assertThat(probe(stale)).isEqualTo(1); // its snapshot, where it takes one, is now
      write(t, NEWER, "newer");
      SQLException refused = refusedWrite(stale, t, STALE, "stale");
      stale.rollback();
      assertStaleRefused(refused, t);
    }
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleWriteWhileTheNewerHoldsTheFenceWaitsAndIsRefused(int isolation) throws Exception {
    Fenced t = newTable();
    write(t, STALE, "stale-before");
    Future<Void> stale;
    try (Connection newer = begin(isolation)) {
      insert(newer, t, NEWER, "newer");
      stale = leader(t, STALE, "stale", isolation, null);
      awaitWaitingOrDone(stale);
      newer.commit();
    }
    assertStaleRefused(failure(stale), t);
    assertThat(writes(t)).containsExactlyInAnyOrder("stale-before", "newer");
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void aStaleTransactionStartedAfterTheNewerCommittedIsRefused(int isolation) throws Exception {
    Fenced t = newTable();
    write(t, STALE, "stale-before");
    write(t, NEWER, "newer");
    assertStaleRefused(failure(leader(t, STALE, "stale", isolation, null)), t);
    assertThat(writes(t)).containsExactlyInAnyOrder("stale-before", "newer");
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void theFirstRowWrittenByTheStaleLeaderMakesTheNewerWait(int isolation) throws Exception {
    Fenced t = newTable();
    Future<Void> newer;
    try (Connection stale = begin(isolation)) {
      insert(stale, t, STALE, "stale");
      newer = leader(t, NEWER, "newer", isolation, null);
      awaitWaitingOrDone(newer);
      transactions.event("stale commits");
      stale.commit();
    }
    assertThat(writes(t)).contains("stale");
    assertNewerPassesAfter(newer, t, isolation);
    assertThat(transactions.events()).startsWith("stale commits");
  }

  @ParameterizedTest(name = "isolation {0}")
  @MethodSource("isolationLevels")
  void theFirstRowWrittenByTwoLeadersAtOnceLetsNoStaleCommitAfterTheNewerPassed(int isolation)
      throws Exception {
    Fenced t = newTable();
    CyclicBarrier bothFoundNoRow = new CyclicBarrier(2);
    Future<Void> stale = leader(t, STALE, "stale", isolation, bothFoundNoRow);
    Future<Void> newer = leader(t, NEWER, "newer", isolation, bothFoundNoRow);
    boolean staleCommitted = ended(stale, t);
    assertNewerPassesAfter(newer, t, isolation);
    List<String> events = transactions.events();
    if (staleCommitted) {
      assertThat(events.indexOf("stale commits"))
          .as("the stale commit comes before the newer leader passed: %s", events)
          .isLessThan(events.indexOf("newer passed"));
      assertThat(writes(t)).containsOnlyOnce("stale");
    } else {
      assertThat(writes(t)).doesNotContain("stale");
    }
  }

  // --- the guard

  @Test
  void theGuardRefusesADeleteAndALowerTokenAndLetsARaiseThrough() throws SQLException {
    Fenced t = newTable();
    write(t, NEWER, "newer");
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      assertThatThrownBy(
              () -> s.executeUpdate("DELETE FROM conch_fence WHERE office = '" + t.office() + "'"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.GUARD_SQLSTATE))
          .hasMessageContaining("office '" + t.office() + "' may not be deleted")
          .hasMessageContaining("retire the office with SET");
      assertThatThrownBy(
              () ->
                  s.executeUpdate(
                      "UPDATE conch_fence SET token = 5 WHERE office = '" + t.office() + "'"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.GUARD_SQLSTATE))
          .hasMessageContaining("may not be lowered from token 7 to 5");
      assertThatThrownBy(
              () ->
                  s.executeUpdate(
                      "UPDATE conch_fence SET office = 'elsewhere' WHERE office = '"
                          + t.office()
                          + "'"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.GUARD_SQLSTATE));
      assertThat(
              s.executeUpdate(
                  "UPDATE conch_fence SET token = 9 WHERE office = '" + t.office() + "'"))
          .isEqualTo(1);
    }
    assertThat(token(t.office())).isEqualTo(9);
  }

  @Test
  void anOfficeIsRetiredTheOneAllowedWay() throws SQLException {
    Fenced t = newTable();
    Fenced other = newTable();
    write(t, NEWER, "newer");
    write(other, NEWER, "newer");
    try (Connection c = connect()) {
      assertThat(schema.retire(c, t.office())).isTrue();
      assertThat(schema.retire(c, t.office())).isFalse();
      assertThat(c.getAutoCommit()).isTrue();
      // The retirement named one office: the next DELETE of another is refused again.
      try (Statement s = c.createStatement()) {
        assertThatThrownBy(
                () ->
                    s.executeUpdate(
                        "DELETE FROM conch_fence WHERE office = '" + other.office() + "'"))
            .isInstanceOfSatisfying(
                SQLException.class,
                e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.GUARD_SQLSTATE));
      }
    }
    assertThat(fenceRow(t.office())).isEmpty();
    assertThat(token(other.office())).isEqualTo(NEWER);
  }

  @Test
  void anOfficeIsRetiredByHand() throws SQLException {
    Fenced t = newTable();
    write(t, NEWER, "newer");
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute(retireByHand(t.office()));
      assertThat(s.executeUpdate("DELETE FROM conch_fence WHERE office = '" + t.office() + "'"))
          .isEqualTo(1);
      c.commit();
    }
    assertThat(fenceRow(t.office())).isEmpty();
  }

  /** The documented statement that lets the next DELETE of {@code office}'s row through. */
  String retireByHand(String office) {
    return "SET @conch_retire_office = '" + office + "'";
  }

  // --- helpers

  /** A new table {@code fenced_<n> (who, fence_token)} fenced for a new office. */
  Fenced newTable() throws SQLException {
    int n = tables.incrementAndGet();
    Fenced t = new Fenced("fenced_" + n, getClass().getSimpleName() + "-" + n);
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + t.table() + " (who VARCHAR(32), fence_token BIGINT)");
      schema.installColumnTrigger(c, t.table(), "fence_token", t.office());
    }
    return t;
  }

  /** A connection with a transaction open at {@code isolation}. */
  Connection begin(int isolation) throws SQLException {
    Connection c = connect();
    c.setAutoCommit(false);
    c.setTransactionIsolation(isolation);
    return c;
  }

  /** One write of {@code who} with {@code token}, in a transaction of its own that commits. */
  void write(Fenced t, long token, String who) throws SQLException {
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      insert(c, t, token, who);
      c.commit();
    }
  }

  static void insert(Connection c, Fenced t, long token, String who) throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement("INSERT INTO " + t.table() + " (who, fence_token) VALUES (?, ?)")) {
      insert.setString(1, who);
      insert.setLong(2, token);
      insert.executeUpdate();
    }
  }

  /** A write of {@code token} in a transaction of its own that the fence refuses. */
  SQLException refusedWriteAlone(Fenced t, long token, String who) throws SQLException {
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      SQLException refused = refusedWrite(c, t, token, who);
      c.rollback();
      return refused;
    }
  }

  static SQLException refusedWrite(Connection c, Fenced t, long token, String who) {
    try {
      insert(c, t, token, who);
    } catch (SQLException e) {
      return e;
    }
    throw new AssertionError("the write of token " + token + " passed");
  }

  /** One leader's transaction on its own thread: writes, notes when it passed and commits. */
  Future<Void> leader(
      Fenced t, long token, String who, int isolation, @Nullable CyclicBarrier bothFoundNoRow) {
    return transactions.inThread(
        () -> {
          try (Connection c = begin(isolation)) {
            try {
              if (bothFoundNoRow != null) {
                try (PreparedStatement lock = c.prepareStatement(steadyStateLock())) {
                  lock.setString(1, t.office());
                  lock.execute();
                }
                bothFoundNoRow.await(10, TimeUnit.SECONDS);
              }
              insert(c, t, token, who);
              transactions.event(who + " passed");
              transactions.event(who + " commits");
              c.commit();
            } catch (SQLException | RuntimeException e) {
              c.rollback();
              throw e;
            }
          }
          return null;
        });
  }

  /** The newer leader passed, or failed in a way its caller retries and then passed. */
  private void assertNewerPassesAfter(Future<Void> newer, Fenced t, int isolation)
      throws Exception {
    try {
      newer.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause())
          .isInstanceOfSatisfying(
              SQLException.class,
              sql -> assertThat(isRetryable(sql)).as("retryable: %s", sql).isTrue());
      value(leader(t, NEWER, "newer", isolation, null));
    }
    assertThat(token(t.office())).isEqualTo(NEWER);
    assertThat(writes(t)).contains("newer");
  }

  /** Whether the stale leader committed; when it failed, it was refused and left nothing. */
  private boolean ended(Future<Void> stale, Fenced t) throws Exception {
    try {
      stale.get(20, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException e) {
      assertStaleRefused(e.getCause(), t);
      return false;
    }
  }

  static boolean isRetryable(SQLException e) {
    return e.getSQLState() != null && e.getSQLState().startsWith("40");
  }

  /** Refused as stale, or failed in a way the caller retries; never a success, nothing written. */
  void assertStaleRefused(Throwable failure, Fenced t) throws SQLException {
    assertThat(failure)
        .satisfiesAnyOf(
            e -> assertThat(FenceSchema.staleToken(e)).isPresent(),
            e ->
                assertThat(e)
                    .isInstanceOf(SQLException.class)
                    .matches(x -> isRetryable((SQLException) x), "a retryable SQLException"));
    assertThat(writes(t)).doesNotContain("stale");
  }

  /** The committed writes of {@code t}. */
  List<String> writes(Fenced t) throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("SELECT who FROM " + t.table())) {
      List<String> found = new ArrayList<>();
      while (rows.next()) {
        found.add(rows.getString(1));
      }
      return found;
    }
  }

  long token(String office) throws SQLException {
    List<Object> row = fenceRow(office);
    assertThat(row).as("the fence row of %s", office).isNotEmpty();
    return (Long) row.get(0);
  }

  /** The office's fence row: token, holder, updated_at; empty when there is none. */
  List<Object> fenceRow(String office) throws SQLException {
    try (Connection c = connect();
        PreparedStatement read =
            c.prepareStatement(
                "SELECT token, holder, updated_at FROM conch_fence WHERE office = ?")) {
      read.setString(1, office);
      try (ResultSet row = read.executeQuery()) {
        return row.next() ? List.of(row.getLong(1), row.getString(2), row.getObject(3)) : List.of();
      }
    }
  }

  /**
   * Waits until some session waits for a lock (the other transaction reached the fence), or {@code
   * other} ended without waiting.
   */
  void awaitWaitingOrDone(Future<?> other) {
    Transactions.awaitWaitingOrDone(
        other, this::connect, waitingSessionsQuery(), waitingPollInterval());
  }

  private static int probe(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("SELECT count(*) FROM snapshot_probe")) {
      rows.next();
      return rows.getInt(1);
    }
  }
}
