package dev.conch.jdbc;

import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The fence inside the database: triggers that make the database itself refuse a stale write, and a
 * guard on the fence table.
 *
 * <p><b>The fence column.</b> The user's table carries the writer's fencing token in a column
 * ({@code fence_token BIGINT}). {@link #columnTrigger} gives the statements of a trigger that
 * checks every inserted or updated row's token against the office's row in the fence table, in the
 * same statement as the write, whichever client sends it: a newer token in the fence table refuses
 * the write (SQLState {@value #STALE_TOKEN_SQLSTATE}, {@link #staleToken(Throwable)} maps it to a
 * {@link StaleTokenException}); a newer token in the row raises the fence table (a new term's first
 * write); a {@code NULL} token is refused (SQLState {@value #MISSING_TOKEN_SQLSTATE}). The locks
 * are those of {@link JdbcFence#check}, so both forms can fence one office.
 *
 * <p><b>The guard.</b> {@link #guard} gives the statements of a trigger on the fence table that
 * refuses a {@code DELETE}, an {@code UPDATE} that lowers a token or renames an office, and (on
 * PostgreSQL) a {@code TRUNCATE} (SQLState {@value #GUARD_SQLSTATE}): a deleted or lowered row
 * would let an old token pass again. {@link #retire} deletes an office's row the one allowed way.
 * The statements ship in this jar as scripts beside the schema scripts ({@link
 * FenceDialect#guardLocation()}).
 *
 * <p>Immutable and thread-safe.
 */
public final class FenceSchema {

  /** The SQLState of a write refused for a stale token: {@value}. */
  public static final String STALE_TOKEN_SQLSTATE = "NC001";

  /** The SQLState of a write refused because its row carries no token: {@value}. */
  public static final String MISSING_TOKEN_SQLSTATE = "NC002";

  /** The SQLState of a change the guard of the fence table refused: {@value}. */
  public static final String GUARD_SQLSTATE = "NC003";

  /** Where the fence's advisory locks live on PostgreSQL: the first key of every one. */
  static final int ADVISORY_LOCK_SPACE = 1668247139;

  private static final Pattern STALE_MESSAGE =
      Pattern.compile(
          "stale fencing token (-?\\d+) for office '(.+?)': the fence holds token (-?\\d+)"
              + "(?: of holder '(.*?)'; a newer leader)?",
          Pattern.DOTALL);

  private static final String COLUMN_ACCEPTED =
      "an SQL identifier of 1 to 63 letters, digits and '_', not starting with a digit";

  private final String fenceTable;

  private FenceSchema(String fenceTable) {
    this.fenceTable = FenceTable.require(fenceTable);
  }

  /** The schema of the fence table {@value JdbcFence#DEFAULT_TABLE}. */
  public static FenceSchema create() {
    return new FenceSchema(JdbcFence.DEFAULT_TABLE);
  }

  /**
   * The schema of the fence table {@code fenceTable}.
   *
   * @param fenceTable an SQL identifier, optionally schema-qualified, as {@link JdbcFence#forTable}
   *     takes it
   * @throws InvalidArgumentException when it is not one
   */
  public static FenceSchema forTable(String fenceTable) {
    return new FenceSchema(fenceTable);
  }

  /** The fence table's name. */
  public String fenceTable() {
    return fenceTable;
  }

  // --- the guard

  /**
   * The statements that install the guard on the fence table (it must exist), each without a
   * trailing separator, to run in order; running them again changes nothing. They are the script
   * {@link FenceDialect#guardLocation()} with this fence table's name.
   */
  public List<String> guard(FenceDialect dialect) {
    Objects.requireNonNull(dialect, "dialect");
    List<String> statements = new ArrayList<>();
    for (String statement : scriptStatements(dialect.guardLocation())) {
      statements.add(statement.replace(JdbcFence.DEFAULT_TABLE, fenceTable));
    }
    return statements;
  }

  /**
   * Installs the guard on the fence table of {@code connection}'s database (see {@link #guard}).
   */
  public void installGuard(Connection connection) throws SQLException {
    run(connection, guard(FenceDialect.of(connection)));
  }

  /**
   * Deletes the fence row of {@code office}: the one way past the guard, for an office that is no
   * longer used. Runs in {@code connection}'s transaction when autocommit is off (and commits
   * nothing), else in a transaction of its own. A later term of the office starts again from any
   * token: retire an office only when none of its leaders runs any more.
   *
   * <p>The same by hand: PostgreSQL {@code SET LOCAL conch.retire_office = 'billing'} and the
   * {@code DELETE} in one transaction; MySQL, MariaDB and H2 {@code SET @conch_retire_office =
   * 'billing'} in the session before the {@code DELETE} (and {@code NULL} after).
   *
   * @return whether a row was deleted
   * @throws InvalidArgumentException for an office conch does not accept
   */
  public boolean retire(Connection connection, String office) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Setting.OFFICE.require(office);
    FenceDialect dialect = FenceDialect.of(connection);
    boolean own = connection.getAutoCommit();
    if (own) {
      connection.setAutoCommit(false);
    }
    try {
      String set =
          dialect == FenceDialect.POSTGRESQL
              ? "SELECT set_config('conch.retire_office', ?, true)"
              : "SET @conch_retire_office = ?";
      setRetired(connection, set, office);
      int deleted;
      try (PreparedStatement delete =
          connection.prepareStatement("DELETE FROM " + fenceTable + " WHERE office = ?")) {
        delete.setString(1, office);
        deleted = delete.executeUpdate();
      } finally {
        if (dialect != FenceDialect.POSTGRESQL) {
          setRetired(connection, set, null);
        }
      }
      if (own) {
        connection.commit();
      }
      return deleted > 0;
    } catch (SQLException | RuntimeException e) {
      if (own) {
        connection.rollback();
      }
      throw e;
    } finally {
      if (own) {
        connection.setAutoCommit(true);
      }
    }
  }

  private static void setRetired(Connection connection, String set, @Nullable String office)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(set)) {
      statement.setString(1, office);
      statement.execute();
    }
  }

  // --- the fence column

  /**
   * The statements that install the fence column's trigger on {@code table} for the office {@code
   * office}, to run in order; running them again replaces the trigger. Every row inserted into or
   * updated in {@code table} must then carry, in {@code column}, a token no older than the fence
   * table's for {@code office}.
   *
   * <p>PostgreSQL: a PL/pgSQL function {@code <table>_conch_column()} (created or replaced) with
   * the column and the office written in, and a trigger {@code conch_column} on {@code table}
   * calling it. MySQL, MariaDB: two triggers ({@code <table>_conch_ins}, {@code <table>_conch_upd})
   * with the office written in. H2: a trigger {@code <table>_CONCH_FENCE} calling {@code
   * dev.conch.jdbc.H2FenceColumn} (H2 on the class path), its office and column in the trigger's
   * remark.
   *
   * @param table the user's table, an SQL identifier, optionally schema-qualified
   * @param column the token column of {@code table} ({@code BIGINT}), an SQL identifier
   * @param office the office whose token the column carries, as conch accepts it
   * @throws InvalidArgumentException for a table, column or office that is not one
   */
  public List<String> columnTrigger(
      FenceDialect dialect, String table, String column, String office) {
    Setting.OFFICE.require(office);
    return FenceColumnSql.statements(
        Objects.requireNonNull(dialect, "dialect"),
        fenceTable,
        requireTable(table),
        requireColumn("token column", column),
        office,
        null);
  }

  /**
   * As {@link #columnTrigger}, with the office taken from each row's {@code officeColumn} instead
   * of a constant: one table holds the data of several offices. A row without an office is refused
   * (SQLState {@value #MISSING_TOKEN_SQLSTATE}).
   *
   * @throws InvalidArgumentException for a table or column that is not an SQL identifier
   */
  public List<String> officeColumnTrigger(
      FenceDialect dialect, String table, String column, String officeColumn) {
    return FenceColumnSql.statements(
        Objects.requireNonNull(dialect, "dialect"),
        fenceTable,
        requireTable(table),
        requireColumn("token column", column),
        null,
        requireColumn("office column", officeColumn));
  }

  /**
   * Installs {@link #columnTrigger} on {@code connection}'s database; in one transaction where the
   * database has transactional DDL (PostgreSQL), so that no write passes unfenced meanwhile.
   */
  public void installColumnTrigger(
      Connection connection, String table, String column, String office) throws SQLException {
    run(connection, columnTrigger(FenceDialect.of(connection), table, column, office));
  }

  /** Installs {@link #officeColumnTrigger} on {@code connection}'s database. */
  public void installOfficeColumnTrigger(
      Connection connection, String table, String column, String officeColumn) throws SQLException {
    run(connection, officeColumnTrigger(FenceDialect.of(connection), table, column, officeColumn));
  }

  // --- recognizing the refusals

  /**
   * The stale-token refusal of a fence column's trigger in {@code failure} or its causes (a Spring
   * {@code DataAccessException} wraps the driver's {@code SQLException}), as a {@link
   * StaleTokenException} naming the office, the refused token, and the newer token with its holder;
   * empty for any other failure.
   */
  public static Optional<StaleTokenException> staleToken(@Nullable Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StaleTokenException stale) {
        return Optional.of(stale);
      }
      if (t instanceof SQLException sql) {
        for (SQLException e = sql; e != null; e = e.getNextException()) {
          if (STALE_TOKEN_SQLSTATE.equals(e.getSQLState()) && e.getMessage() != null) {
            Matcher m = STALE_MESSAGE.matcher(e.getMessage());
            if (m.find()) {
              StaleTokenException stale =
                  new StaleTokenException(
                      m.group(2),
                      Long.parseLong(m.group(1)),
                      Long.parseLong(m.group(3)),
                      m.group(4));
              stale.initCause(e);
              return Optional.of(stale);
            }
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Whether {@code failure} or one of its causes is an SQLException with {@code sqlState} ({@link
   * #STALE_TOKEN_SQLSTATE}, {@link #MISSING_TOKEN_SQLSTATE}, {@link #GUARD_SQLSTATE}).
   */
  public static boolean isRefusal(@Nullable Throwable failure, String sqlState) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && sqlState.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  // --- helpers

  private static String requireTable(String table) {
    try {
      return FenceTable.require(table);
    } catch (InvalidArgumentException e) {
      throw new InvalidArgumentException("table", table, FenceTable.ACCEPTED);
    }
  }

  private static String requireColumn(String what, String column) {
    if (column == null || !column.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")) {
      throw new InvalidArgumentException(what, column, COLUMN_ACCEPTED);
    }
    return column;
  }

  /** Runs {@code statements} in order; in one transaction on PostgreSQL. */
  private static void run(Connection connection, List<String> statements) throws SQLException {
    boolean transactional =
        FenceDialect.of(connection) == FenceDialect.POSTGRESQL && connection.getAutoCommit();
    if (transactional) {
      connection.setAutoCommit(false);
    }
    try (Statement statement = connection.createStatement()) {
      for (String each : statements) {
        statement.execute(each);
      }
      if (transactional) {
        connection.commit();
      }
    } catch (SQLException | RuntimeException e) {
      if (transactional) {
        connection.rollback();
      }
      throw e;
    } finally {
      if (transactional) {
        connection.setAutoCommit(true);
      }
    }
  }

  /**
   * The statements of a script of this jar: comment lines dropped, statements separated by a line
   * holding only {@code ;;}.
   */
  static List<String> scriptStatements(String location) {
    String text;
    try (InputStream in = FenceSchema.class.getClassLoader().getResourceAsStream(location)) {
      if (in == null) {
        throw new IllegalStateException(location + " is missing from conch-jdbc's jar");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + location, e);
    }
    List<String> statements = new ArrayList<>();
    StringBuilder statement = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      String stripped = line.strip();
      if (stripped.equals(";;")) {
        if (!statement.toString().isBlank()) {
          statements.add(statement.toString().strip());
        }
        statement.setLength(0);
      } else if (!stripped.startsWith("--")) {
        statement.append(line).append('\n');
      }
    }
    if (!statement.toString().isBlank()) {
      statements.add(statement.toString().strip());
    }
    return statements;
  }

  @Override
  public String toString() {
    return "FenceSchema[fenceTable=" + fenceTable + "]";
  }
}
