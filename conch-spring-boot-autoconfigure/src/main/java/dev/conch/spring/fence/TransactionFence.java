package dev.conch.spring.fence;

import dev.conch.Leadership;
import dev.conch.jdbc.FenceTableMissingException;
import dev.conch.jdbc.JdbcFence;
import dev.conch.jdbc.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Fences the current Spring transaction in the application's own database: runs conch-jdbc's {@link
 * JdbcFence} on the connection Spring bound to the transaction ({@link
 * DataSourceUtils#getConnection(DataSource)}), so that the transaction's own writes, made with
 * JdbcTemplate, JdbcClient, JPA or Spring Data, commit only while no newer leader of the office has
 * fenced it.
 *
 * <pre>{@code
 * @Transactional
 * public void store(Report report) {
 *   Leadership term = fence.fence();          // throws StaleTokenException when stale
 *   jdbcClient.sql("INSERT INTO report (token, ...) VALUES (?, ...)")
 *       .param(term.token()) ...;
 * }
 * }</pre>
 *
 * <p>Every call fails at once, before anything is written, when no transaction is active (a fence
 * outside the transaction protects nothing), when the transaction does not hold a connection of
 * this fence's {@code DataSource}, or when this instance does not lead the office. When the fence
 * fails or refuses, the transaction cannot commit even if the caller catches the exception: its
 * commit throws the same exception and rolls back.
 *
 * <p>Thread-safe; one bean serves every transaction.
 */
public final class TransactionFence {

  private final DataSource dataSource;

  private final JdbcFence fence;

  private final LeadershipTerms terms;

  private final FenceListener listener;

  private final SQLExceptionTranslator translator;

  /**
   * A fence on the transactions of {@code dataSource}.
   *
   * @param dataSource the data source whose transactions are fenced (the one their transaction
   *     manager manages)
   * @param fence the fence (its table)
   * @param terms where the fence finds the term of an office
   * @param listener told of fenced commits and refusals
   */
  public TransactionFence(
      DataSource dataSource, JdbcFence fence, LeadershipTerms terms, FenceListener listener) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.fence = Objects.requireNonNull(fence, "fence");
    this.terms = Objects.requireNonNull(terms, "terms");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.translator = new SQLErrorCodeSQLExceptionTranslator(dataSource);
  }

  /**
   * Fences the current transaction with the term of the default office: the office of the running
   * {@code @LeaderOnly} term, else {@code conch.office} (else {@code spring.application.name}).
   *
   * @return the term whose token passed the fence: write its {@link Leadership#token()} beside your
   *     data if you want to know later which term wrote it
   * @throws StaleTokenException when a newer leader fenced the office: the transaction rolls back
   * @throws FenceUnavailableException when there is no transaction, no default office, or no term
   * @throws DataAccessException when the database fails (a missing fence table names the table and
   *     its schema script)
   */
  public Leadership fence() {
    return fence((String) null);
  }

  /**
   * Fences the current transaction with this instance's term of {@code office} (the running
   * {@code @LeaderOnly} term when it is of this office).
   *
   * @param office the office; {@code null} or empty for the default office, as {@link #fence()}
   * @return the term whose token passed the fence
   * @throws StaleTokenException when a newer leader fenced the office: the transaction rolls back
   * @throws FenceUnavailableException when there is no transaction or this instance does not lead
   *     {@code office}
   * @throws DataAccessException when the database fails
   */
  public Leadership fence(@Nullable String office) {
    String name = (office == null || office.isEmpty()) ? defaultOffice() : office;
    requireTransaction(name);
    Leadership term =
        this.terms
            .current(name)
            .orElseThrow(
                () ->
                    new FenceUnavailableException(
                        "This instance does not lead office '"
                            + name
                            + "', so it has no fencing token to offer: a transaction fenced"
                            + " for an office must run in a term of it (a @LeaderOnly method,"
                            + " or while Election.isLeader())"));
    return run(term);
  }

  /**
   * Fences the current transaction with {@code term}: a term handed to another thread, or kept for
   * a piece of work that outlives the {@code @LeaderOnly} call it began in. The token is offered
   * even when the term has ended here: the database, not this instance's clock, decides whether a
   * newer leader came.
   *
   * @return {@code term}
   * @throws StaleTokenException when a newer leader fenced the office: the transaction rolls back
   * @throws FenceUnavailableException when there is no transaction
   * @throws DataAccessException when the database fails
   */
  public Leadership fence(Leadership term) {
    Objects.requireNonNull(term, "term");
    requireTransaction(term.office());
    return run(term);
  }

  /** The plain-JDBC fence this one runs (its table). */
  public JdbcFence jdbcFence() {
    return this.fence;
  }

  private Leadership run(Leadership term) {
    Connection connection = DataSourceUtils.getConnection(this.dataSource);
    try {
      this.fence.check(connection, term);
    } catch (StaleTokenException ex) {
      refuseCommit(ex);
      this.listener.refused(ex);
      throw ex;
    } catch (SQLException ex) {
      // Spring's translation keeps only the task in its message: the fence's own says what to do.
      String task = "conch fence of office '" + term.office() + "': " + ex.getMessage() + hint(ex);
      DataAccessException translated = this.translator.translate(task, null, ex);
      throw refuseCommit(
          (translated != null) ? translated : new UncategorizedSQLException(task, null, ex));
    } catch (RuntimeException ex) {
      throw refuseCommit(ex);
    } finally {
      DataSourceUtils.releaseConnection(connection, this.dataSource);
    }
    if (this.listener != FenceListener.NONE) {
      TransactionSynchronizationManager.registerSynchronization(
          new CommitCounter(this.listener, term.office(), term.token()));
    }
    return term;
  }

  /**
   * What a Spring application can do about a missing fence table, added to conch-jdbc's message,
   * which names the table and its script.
   */
  private static String hint(SQLException ex) {
    return ex instanceof FenceTableMissingException
        ? " (or let Spring Boot create it: conch.fence.jdbc.initialize-schema=always)"
        : "";
  }

  private String defaultOffice() {
    return this.terms
        .defaultOffice()
        .orElseThrow(
            () ->
                new FenceUnavailableException(
                    "No office to fence: name one (@Fenced(\"office\"), fence(\"office\")), or"
                        + " set conch.office or spring.application.name"));
  }

  /** Refuses before any statement: outside a transaction the fence would protect nothing. */
  private void requireTransaction(String office) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new FenceUnavailableException(
          "No transaction is active on thread '"
              + Thread.currentThread().getName()
              + "': the fence of office '"
              + office
              + "' must run inside the transaction whose writes it protects (a fence outside"
              + " the transaction protects nothing); make the method @Transactional");
    }
    if (!(TransactionSynchronizationManager.getResource(this.dataSource)
        instanceof ConnectionHolder)) {
      throw new FenceUnavailableException(
          "The current transaction holds no connection of the fence's DataSource ("
              + this.dataSource
              + "): the fence of office '"
              + office
              + "' must run on the connection the transaction writes on; use a transaction"
              + " manager of this DataSource (DataSourceTransactionManager, JdbcTransactionManager,"
              + " or JpaTransactionManager with a JPA provider that exposes its JDBC connection)");
    }
  }

  /**
   * Makes sure that a transaction that did not pass the fence cannot commit, even when its caller
   * catches {@code failure}: its commit throws {@code failure} again and rolls back. A
   * synchronization does this with every transaction manager (a rollback-only mark would be read
   * from a different place by each, and a local one rolls back silently).
   */
  private static RuntimeException refuseCommit(RuntimeException failure) {
    if (TransactionSynchronizationManager.isSynchronizationActive()) {
      TransactionSynchronizationManager.registerSynchronization(new RefusedCommit(failure));
    }
    return failure;
  }

  @Override
  public String toString() {
    return "TransactionFence[" + this.fence + "]";
  }

  /** Fails the commit of a transaction that did not pass the fence. */
  private record RefusedCommit(RuntimeException failure) implements TransactionSynchronization {

    @Override
    public void beforeCommit(boolean readOnly) {
      throw this.failure;
    }
  }

  /** Tells the listener of a fenced commit once the transaction committed. */
  private record CommitCounter(FenceListener listener, String office, long token)
      implements TransactionSynchronization {

    @Override
    public void afterCommit() {
      this.listener.committed(this.office, this.token);
    }
  }
}
