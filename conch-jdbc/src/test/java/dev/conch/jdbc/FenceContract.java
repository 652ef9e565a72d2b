package dev.conch.jdbc;

import static dev.conch.jdbc.Transactions.assertRefused;
import static dev.conch.jdbc.Transactions.failure;
import static dev.conch.jdbc.Transactions.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.Holder;
import dev.conch.Leadership;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * What the fence promises on every database, against a real one: a subclass gives the database and
 * the isolation levels it is run at ({@link FenceRacesContract} forces the races). A stale leader
 * holds token {@link #STALE}, the newer one {@link #NEWER}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
abstract class FenceContract {

  static final long STALE = 5;
  static final long NEWER = 7;

  final JdbcFence fence = JdbcFence.create();
  Transactions transactions;
  private final AtomicInteger offices = new AtomicInteger();

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

  /** Whether {@code e} is a failure the caller retries: a serialization failure or deadlock. */
  boolean isRetryable(SQLException e) {
    return e.getSQLState() != null && e.getSQLState().startsWith("40");
  }

  @BeforeAll
  void createTables() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(dialect().createTableStatement(JdbcFence.DEFAULT_TABLE));
      s.execute(
          "CREATE TABLE fenced_write (office VARCHAR(128) NOT NULL, who VARCHAR(32) NOT NULL)");
      // A table no race writes: reading it opens a transaction's snapshot without locking what
      // the other transaction writes (InnoDB's SERIALIZABLE locks every row a read touches).
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

  @Test
  void theDialectIsDetected() throws SQLException {
    try (Connection c = connect()) {
      assertThat(FenceDialect.of(c)).isEqualTo(dialect());
    }
  }

  @Test
  void aTermPassesAgainAndAgainAndANewerTermRaisesTheRow() throws SQLException {
    String office = newOffice();
    lead(office, STALE, "stale");
    lead(office, STALE, "stale");
    lead(office, NEWER, "newer");
    lead(office, NEWER, "newer");
    try (Connection c = connect()) {
      assertThat(fence.currentToken(c, office)).hasValue(NEWER);
      try (PreparedStatement read =
          c.prepareStatement("SELECT holder, updated_at FROM conch_fence WHERE office = ?")) {
        read.setString(1, office);
        try (ResultSet row = read.executeQuery()) {
          assertThat(row.next()).isTrue();
          assertThat(row.getString(1)).isEqualTo("newer");
          assertThat(row.getTimestamp(2)).isNotNull();
        }
      }
    }
    assertThat(writes(office)).containsExactlyInAnyOrder("stale", "stale", "newer", "newer");
  }

  @Test
  void anOlderTokenIsRefusedWithTheNewerOneNamedAndItsWritesRollBack() throws SQLException {
    String office = newOffice();
    lead(office, NEWER, "newer");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      assertThatThrownBy(() -> fence.check(c, office, STALE, "stale"))
          .isInstanceOfSatisfying(
              StaleTokenException.class,
              e -> {
                assertThat(e.office()).isEqualTo(office);
                assertThat(e.token()).isEqualTo(STALE);
                assertThat(e.currentToken()).isEqualTo(NEWER);
                assertThat(e.currentHolder()).isEqualTo("newer");
              })
          .hasMessageContaining("token " + STALE)
          .hasMessageContaining("token " + NEWER)
          .hasMessageContaining(office);
      c.rollback();
    }
    assertThat(writes(office)).containsExactly("newer");
  }

  @Test
  void transactionsOfOneTermDoNotQueueBehindEachOther() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        dialect() != FenceDialect.H2, "H2 has no shared row lock: its fence takes FOR UPDATE");
    String office = newOffice();
    lead(office, STALE, "first");
    try (Connection first = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      fence.check(first, office, STALE, "first");
      // The second passes while the first is still open: value() fails if it waits for it.
      value(
          transactions.inThread(
              () -> {
                try (Connection second = begin(Connection.TRANSACTION_READ_COMMITTED)) {
                  fence.check(second, office, STALE, "second");
                  second.commit();
                }
                return null;
              }));
      first.commit();
    }
  }

  @Test
  void aLeadershipIsFencedWithItsOfficeTokenAndHolderId() throws SQLException {
    String office = newOffice();
    Leadership term =
        new Leadership(office, 9, 0x1f, Holder.of(office, "host-a", 42, Instant.now(), "worker-1"));
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      fence.check(c, term);
      c.commit();
      try (PreparedStatement read =
          c.prepareStatement("SELECT token, holder FROM conch_fence WHERE office = ?")) {
        read.setString(1, office);
        try (ResultSet row = read.executeQuery()) {
          assertThat(row.next()).isTrue();
          assertThat(row.getLong(1)).isEqualTo(9);
          assertThat(row.getString(2)).isEqualTo("worker-1");
        }
      }
      c.commit();
    }
  }

  @Test
  void aRefusalLeavesTheTransactionUsableForItsRollback() throws SQLException {
    // No statement of the fence fails on the way to a refusal: on PostgreSQL a failed statement
    // (a duplicate key) would abort the caller's transaction, and this read would fail.
    String office = newOffice();
    lead(office, NEWER, "newer");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      assertThatThrownBy(() -> fence.check(c, office, STALE, "stale"))
          .isInstanceOf(StaleTokenException.class);
      assertThat(writes(c, office)).isEqualTo(1);
      c.rollback();
    }
  }

  @Test
  void anAutocommitConnectionIsRefusedAndNothingIsWritten() throws SQLException {
    String office = newOffice();
    try (Connection c = connect()) {
      assertThatThrownBy(() -> fence.check(c, office, STALE, "stale"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("autocommit")
          .hasMessageContaining("setAutoCommit(false)");
      assertThat(fence.currentToken(c, office)).isEmpty();
    }
  }

  @Test
  void aMissingTableIsNamedWithItsSchemaScript() throws SQLException {
    JdbcFence elsewhere = JdbcFence.forTable("no_such_fence");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      assertThatThrownBy(() -> elsewhere.check(c, newOffice(), STALE, "stale"))
          .isInstanceOf(FenceTableMissingException.class)
          .hasMessageContaining("'no_such_fence' does not exist")
          .hasMessageContaining(dialect().schemaLocation());
      c.rollback();
    }
  }

  // --- helpers for this class and the race tests

  /** An office no other test uses. */
  String newOffice() {
    return getClass().getSimpleName() + "-" + offices.incrementAndGet();
  }

  /** A connection with a transaction open at {@code isolation}. */
  Connection begin(int isolation) throws SQLException {
    Connection c = connect();
    c.setAutoCommit(false);
    c.setTransactionIsolation(isolation);
    return c;
  }

  /** One fenced transaction that writes {@code who} and commits. */
  void lead(String office, long token, String who) throws SQLException {
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      fence.check(c, office, token, who);
      write(c, office, who);
      c.commit();
    }
  }

  /** The transaction's own write, protected by the fence. */
  static void write(Connection c, String office, String who) throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement("INSERT INTO fenced_write (office, who) VALUES (?, ?)")) {
      insert.setString(1, office);
      insert.setString(2, who);
      insert.executeUpdate();
    }
  }

  /** The committed writes of {@code office}, in no particular order. */
  List<String> writes(String office) throws SQLException {
    try (Connection c = connect();
        PreparedStatement read =
            c.prepareStatement("SELECT who FROM fenced_write WHERE office = ?")) {
      read.setString(1, office);
      List<String> found = new ArrayList<>();
      try (ResultSet rows = read.executeQuery()) {
        while (rows.next()) {
          found.add(rows.getString(1));
        }
      }
      return found;
    }
  }

  /** Writes of {@code office} as {@code c}'s transaction sees them. */
  static int writes(Connection c, String office) throws SQLException {
    try (PreparedStatement read =
        c.prepareStatement("SELECT count(*) FROM fenced_write WHERE office = ?")) {
      read.setString(1, office);
      try (ResultSet rows = read.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }

  /**
   * Waits until some session waits for a lock (the other transaction reached the fence's row), or
   * {@code other} ended without waiting (it failed at once: the race was run all the same).
   */
  void awaitWaitingOrDone(java.util.concurrent.Future<?> other) {
    Transactions.awaitWaitingOrDone(
        other, this::connect, waitingSessionsQuery(), waitingPollInterval());
  }

  /** Asserts that a stale transaction that failed at the fence left nothing behind. */
  void assertStaleRefused(Throwable failure, String office) throws SQLException {
    assertRefused(failure, this::isRetryable);
    assertThat(writes(office)).doesNotContain("stale");
  }
}
