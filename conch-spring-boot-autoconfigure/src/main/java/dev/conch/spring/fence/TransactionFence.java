package dev.conch.spring.fence;

import dev.conch.Leadership;
import dev.conch.jdbc.FenceTableMissingException;
import dev.conch.jdbc.FenceTimeoutException;
import dev.conch.jdbc.JdbcFence;
import dev.conch.jdbc.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Fences the current Spring transaction in the application's own database with conch-jdbc's {@link
 * JdbcFence}, so that the transaction's own writes, made with JdbcTemplate, JdbcClient, JPA or
 * Spring Data, commit only while no newer leader of the office has fenced it.
 *
 * <pre>{@code
 * @Transactional
 * public void store(Report report) {
 *   Leadership term = fence.fence();          // the term whose token the commit is checked with
 *   jdbcClient.sql("INSERT INTO report (token, ...) VALUES (?, ...)")
 *       .param(term.token()) ...;
 * }
 * }</pre>
 *
 * <p>How it holds, whatever the code between does:
 *
 * <ul>
 *   <li>The term's first fence raises the office's row to its token in a short transaction of its
 *       own, on a connection of its own ({@link JdbcFence#raise}): it waits for the older term's
 *       transactions that passed the fence, and once it has committed no older term can pass. A
 *       transaction that began after that sees everything the older terms committed.
 *   <li>The check itself runs just before the commit, on the transaction's connection, whatever ran
 *       before (a statement whose deadlock the code caught, a savepoint rolled back): one round
 *       trip in the steady state, and the commit is refused ({@link StaleTokenException}) when a
 *       newer leader raised the row.
 *   <li>A transaction that may have read before its term's raise ended (it began before, and the
 *       fence was not its first step) fails with {@link TermBeganException}, which is transient:
 *       run it again. A {@code @Fenced} method that begins its own transaction never does.
 * </ul>
 *
 * <p>Every call fails at once, before anything is written, when no transaction is active (a fence
 * outside the transaction protects nothing), when the transaction does not hold a connection of
 * this fence's {@code DataSource}, or when this instance does not lead the office. When the fence
 * fails or refuses, the transaction cannot commit even if the caller catches the exception: its
 * commit throws the same exception and rolls back.
 *
 * <p>Thread-safe; one bean serves every transaction.
 *
 * <p>Why one file of over 400 lines: the three steps above (the raise, the check before the commit,
 * the refusal that outlives a caught exception) are one safety argument over one transaction's
 * state, and each step's reasoning leans on the others'; read apart, none of them shows why the
 * whole holds.
 */
public final class TransactionFence {

  /** How long a term-start raise may wait for the older term's transactions before leaving it. */
  private static final Duration TERM_START_TIMEOUT = Duration.ofSeconds(10);

  private static final Log logger = LogFactory.getLog(TransactionFence.class);

  private final DataSource dataSource;

  private final JdbcFence fence;

  private final LeadershipTerms terms;

  private final FenceListener listener;

  private final SQLExceptionTranslator translator;

  /** The tokens this fence raised, by office: a term raises once. */
  private final Map<String, Long> raised = new ConcurrentHashMap<>();

  /** The key of a transaction's {@link CommitCheck} among its bound resources. */
  private final Object commitCheckKey = new Object();

  /** One raise at a time per office: the others wait for it instead of taking a connection each. */
  private final Map<String, Object> raising = new ConcurrentHashMap<>();

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
    return fence(office, false);
  }

  /**
   * As {@link #fence(String)}, for a {@code @Fenced} method: {@code transactionIsNew} when the
   * method's transaction began with it, so that nothing read in it can predate the raise.
   */
  Leadership fence(@Nullable String office, boolean transactionIsNew) {
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
    return run(term, transactionIsNew);
  }

  /**
   * Fences the current transaction with {@code term}: a term handed to another thread, or kept for
   * a piece of work that outlives the {@code @LeaderOnly} call it began in. The token is offered
   * even when the term has ended here: the database, not this instance's clock, decides whether a
   * newer leader came.
   *
   * @return {@code term}
   * @throws StaleTokenException when a newer leader fenced the office: the transaction rolls back
   * @throws TermBeganException when the term's raise ended after the transaction began
   * @throws FenceUnavailableException when there is no transaction
   * @throws DataAccessException when the database fails
   */
  public Leadership fence(Leadership term) {
    Objects.requireNonNull(term, "term");
    requireTransaction(term.office());
    return run(term, false);
  }

  /**
   * Whether this fence guards the transactions of {@code other} (or of the DataSource it wraps).
   */
  boolean isOf(DataSource other) {
    DataSource unwrapped = other;
    while (unwrapped instanceof DelegatingDataSource delegating
        && delegating.getTargetDataSource() != null) {
      if (unwrapped == this.dataSource) {
        return true;
      }
      unwrapped = delegating.getTargetDataSource();
    }
    return unwrapped == this.dataSource
        || (this.dataSource instanceof DelegatingDataSource own
            && own.getTargetDataSource() == unwrapped);
  }

  /** The plain-JDBC fence this one runs (its table). */
  public JdbcFence jdbcFence() {
    return this.fence;
  }

  private Leadership run(Leadership term, boolean transactionIsNew) {
    CommitCheck check = commitCheck();
    if (!check.covers(term)) {
      raise(term, transactionIsNew);
      check.add(term);
    }
    return term;
  }

  /**
   * Raises the office's row to the term's token once per term, on a connection of its own; fails
   * the transaction with {@link TermBeganException} when it may have read before the raise.
   */
  private void raise(Leadership term, boolean transactionIsNew) {
    String office = term.office();
    long token = term.token();
    long earlier;
    synchronized (this.raising.computeIfAbsent(office, o -> new Object())) {
      Long done = this.raised.get(office);
      if (done != null && done == token) {
        return;
      }
      try (Connection own = this.dataSource.getConnection()) {
        earlier = this.fence.raise(own, term, timeout());
      } catch (StaleTokenException ex) {
        this.listener.refused(ex);
        throw refuseCommit(ex);
      } catch (SQLException ex) {
        throw refuseCommit(translate(office, ex));
      }
      this.raised.merge(office, token, Math::max);
    }
    if (earlier != 0 && earlier < token && !transactionIsNew) {
      throw refuseCommit(new TermBeganException(office, earlier, token));
    }
  }

  /**
   * When a term begins: raises the office's fence row, if this process fenced the office before and
   * the table has its row, in a transaction of its own, so that the term's transactions begin after
   * the older term's last commits. Never throws: a database that cannot be reached, or an older
   * transaction held past the timeout, leaves the raise to the term's first fence (logged at WARN).
   */
  void raiseAtTermStart(Leadership term) {
    String office = term.office();
    if (!this.raised.containsKey(office)) {
      return; // never fenced in this process: its first fence raises, and nothing else waits
    }
    synchronized (this.raising.computeIfAbsent(office, o -> new Object())) {
      Long done = this.raised.get(office);
      if (done != null && done >= term.token()) {
        return;
      }
      try (Connection own = this.dataSource.getConnection()) {
        OptionalLong current = this.fence.currentToken(own, office);
        if (current.isEmpty() || current.getAsLong() > term.token()) {
          return; // never fenced; or a newer term's: the term's own fence will say so
        }
        this.fence.raise(own, term, TERM_START_TIMEOUT);
        this.raised.merge(office, term.token(), Math::max);
      } catch (FenceTableMissingException ex) {
        // An application that has the fence but does not fence this office (or any): nothing to
        // raise, and nothing to warn about at every term.
        logger.debug("No fence table to raise office '" + office + "' in: " + ex.getMessage());
      } catch (SQLException | RuntimeException ex) {
        logger.warn(
            "Could not raise the fence of office '"
                + office
                + "' to token "
                + term.token()
                + " as its term began; the term's first fenced transaction will: "
                + ex.getMessage());
      }
    }
  }

  /**
   * The term the current transaction fenced for {@code office}, or, for an empty office, the one
   * term it fenced when it fenced exactly one; null otherwise. What {@link
   * FenceTokenEntityListener} writes into an entity's {@link FenceToken} field.
   */
  static @Nullable Leadership fencedTerm(String office) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      return null;
    }
    for (TransactionSynchronization each :
        TransactionSynchronizationManager.getSynchronizations()) {
      if (each instanceof CommitCheck check) {
        Leadership term = check.term(office);
        if (term != null) {
          return term;
        }
      }
    }
    return null;
  }

  /** The commit check of the current transaction, registered with its first fence. */
  private CommitCheck commitCheck() {
    Object bound = TransactionSynchronizationManager.getResource(this.commitCheckKey);
    if (bound instanceof CommitCheck check) {
      return check;
    }
    CommitCheck check = new CommitCheck();
    TransactionSynchronizationManager.bindResource(this.commitCheckKey, check);
    TransactionSynchronizationManager.registerSynchronization(check);
    return check;
  }

  /** What is left of the transaction's timeout, for the fence's statements; zero for none. */
  private Duration timeout() {
    Object bound = TransactionSynchronizationManager.getResource(this.dataSource);
    if (bound instanceof ConnectionHolder holder && holder.hasTimeout()) {
      return Duration.ofMillis(holder.getTimeToLiveInMillis());
    }
    return Duration.ZERO;
  }

  private DataAccessException translate(String office, SQLException ex) {
    // Spring's translation keeps only the task in its message: the fence's own says what to do.
    String task = "conch fence of office '" + office + "': " + ex.getMessage() + hint(ex);
    if (ex instanceof FenceTimeoutException) {
      return new CannotAcquireLockException(task, ex);
    }
    DataAccessException translated = this.translator.translate(task, null, ex);
    return (translated != null) ? translated : new UncategorizedSQLException(task, null, ex);
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

  /**
   * Checks the fence of every office the transaction fenced just before it commits, on its
   * connection, and tells the listener of the commit once it happened.
   */
  private final class CommitCheck implements TransactionSynchronization {

    private final Map<String, Leadership> fenced = new LinkedHashMap<>();

    boolean covers(Leadership term) {
      Leadership known = this.fenced.get(term.office());
      return known != null && known.token() == term.token();
    }

    @Nullable Leadership term(String office) {
      if (!office.isEmpty()) {
        return this.fenced.get(office);
      }
      return (this.fenced.size() == 1) ? this.fenced.values().iterator().next() : null;
    }

    void add(Leadership term) {
      this.fenced.merge(term.office(), term, (a, b) -> (a.token() >= b.token()) ? a : b);
    }

    @Override
    public void beforeCommit(boolean readOnly) {
      Connection connection = DataSourceUtils.getConnection(TransactionFence.this.dataSource);
      try {
        for (Leadership term : this.fenced.values()) {
          try {
            TransactionFence.this.fence.check(connection, term, timeout());
          } catch (StaleTokenException ex) {
            TransactionFence.this.listener.refused(ex);
            throw ex;
          } catch (SQLException ex) {
            throw translate(term.office(), ex);
          }
        }
      } finally {
        DataSourceUtils.releaseConnection(connection, TransactionFence.this.dataSource);
      }
    }

    @Override
    public void afterCommit() {
      this.fenced
          .values()
          .forEach(t -> TransactionFence.this.listener.committed(t.office(), t.token()));
    }

    @Override
    public void afterCompletion(int status) {
      TransactionSynchronizationManager.unbindResourceIfPossible(
          TransactionFence.this.commitCheckKey);
    }

    @Override
    public String toString() {
      return "conch fence commit check " + this.fenced.keySet();
    }
  }
}
