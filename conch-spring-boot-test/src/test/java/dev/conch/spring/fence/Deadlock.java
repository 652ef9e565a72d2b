package dev.conch.spring.fence;

import static org.awaitility.Awaitility.await;

import dev.conch.test.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A real deadlock between the caller's transaction and a partner transaction on another thread:
 * each updates one row of {@code deadlock_row}, then the other's. Which one the database makes the
 * victim is its own choice (PostgreSQL the first waiter, InnoDB the lighter one, else the one that
 * closed the cycle): {@code callerWaitsFirst} runs both orders. The caller's side swallows whatever
 * its statement threw, as careless code does.
 */
final class Deadlock implements AutoCloseable {

  static final String TABLE =
      "CREATE TABLE IF NOT EXISTS deadlock_row (id VARCHAR(64) NOT NULL PRIMARY KEY, n INT NOT NULL)";

  private final JdbcTemplate jdbc;

  private final TransactionTemplate partnerTransactions;

  private final DataSource dataSource;

  private final ExecutorService partner = Executors.newSingleThreadExecutor();

  Deadlock(JdbcTemplate jdbc, PlatformTransactionManager transactions, DataSource dataSource) {
    this.jdbc = jdbc;
    this.partnerTransactions = new TransactionTemplate(transactions);
    this.dataSource = dataSource;
  }

  /** Resets the two rows. */
  void prepare() {
    this.jdbc.execute(TABLE);
    this.jdbc.update("DELETE FROM deadlock_row");
    this.jdbc.update("INSERT INTO deadlock_row (id, n) VALUES ('a', 0), ('b', 0)");
  }

  /**
   * Runs in the caller's transaction: deadlocks with the partner and swallows its own statement's
   * failure; returns what the caller's statement threw (null when the partner was the victim).
   */
  DataAccessException inCallersTransaction(boolean callerWaitsFirst) throws Exception {
    touch("a");
    CountDownLatch partnerHoldsB = new CountDownLatch(1);
    CountDownLatch callerWaits = new CountDownLatch(1);
    Future<?> other =
        this.partner.submit(
            () ->
                this.partnerTransactions.executeWithoutResult(
                    status -> {
                      touch("b");
                      partnerHoldsB.countDown();
                      try {
                        if (!callerWaitsFirst) {
                          touchSwallowing("a");
                          return;
                        }
                        callerWaits.await(20, TimeUnit.SECONDS);
                        awaitLockWait();
                        touchSwallowing("a");
                      } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                      }
                    }));
    partnerHoldsB.await(20, TimeUnit.SECONDS);
    if (!callerWaitsFirst) {
      awaitLockWait();
    }
    callerWaits.countDown();
    DataAccessException swallowed = touchSwallowing("b");
    other.get(30, TimeUnit.SECONDS);
    return swallowed;
  }

  private void touch(String id) {
    this.jdbc.update("UPDATE deadlock_row SET n = n + 1 WHERE id = ?", id);
  }

  private DataAccessException touchSwallowing(String id) {
    try {
      touch(id);
      return null;
    } catch (DataAccessException ex) {
      return ex; // what careless code does: catch, log, go on
    }
  }

  /**
   * Waits until some session of the database waits for a row lock; no faster than InnoDB's lock
   * tables refresh ({@link MariaDbServer#LOCK_PROBE_INTERVAL}).
   */
  private void awaitLockWait() {
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(MariaDbServer.LOCK_PROBE_INTERVAL)
        .until(() -> lockWaits() > 0);
  }

  private int lockWaits() throws SQLException {
    String product;
    try (Connection c = this.dataSource.getConnection()) {
      product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    }
    String query =
        product.contains("postgres")
            ? "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            : product.contains("h2")
                ? "SELECT count(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL"
                : "SELECT count(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
    Integer waits = new JdbcTemplate(this.dataSource).queryForObject(query, Integer.class);
    return (waits != null) ? waits : 0;
  }

  @Override
  public void close() {
    this.partner.shutdownNow();
  }
}
