package dev.conch.spring.boot.autoconfigure.fence;

import dev.conch.jdbc.FenceDialect;
import dev.conch.jdbc.FenceSchema;
import dev.conch.jdbc.JdbcFence;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.init.ScriptException;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * Creates the fence table with the schema script of conch-jdbc's jar, the Spring Boot way ({@code
 * conch.fence.jdbc.initialize-schema}, like {@code spring.session.jdbc.initialize-schema}): a
 * database initializer that beans depending on the database wait for, and that Flyway or Liquibase
 * users turn off ({@code never}). The script's table name is replaced by {@code
 * conch.fence.jdbc.table} when that is not the default. Then, unless {@code
 * conch.fence.jdbc.guard=false}, it installs the guard on the fence table (the script {@code
 * dev/conch/jdbc/guard-<platform>.sql}, {@link FenceSchema#guard}): each of its statements is run
 * whole, as Spring's script runner would split a PL/pgSQL body or a trigger's {@code BEGIN ... END}
 * at its semicolons.
 */
public class FenceSchemaInitializer extends DataSourceScriptDatabaseInitializer {

  /** How many times the scripts run before a failure is the start's failure. */
  private static final int ATTEMPTS = 3;

  private final String table;

  private final boolean defaultScript;

  private final boolean guard;

  /**
   * An initializer of the fence table of {@code dataSource}, as {@code properties} say.
   *
   * @throws DataAccessResourceFailureException when the database cannot be asked its name
   */
  public FenceSchemaInitializer(DataSource dataSource, FenceJdbcProperties properties) {
    super(dataSource, settings(dataSource, properties));
    this.table = properties.getTable();
    this.defaultScript = properties.getSchema().equals(FenceJdbcProperties.DEFAULT_SCHEMA_LOCATION);
    this.guard = properties.isGuard();
  }

  @Override
  protected void runScripts(Scripts scripts) {
    again(() -> runTableScripts(scripts));
    if (this.guard) {
      FenceDialect dialect = dialect(getDataSource());
      List<Resource> statements = new ArrayList<>();
      for (String statement : FenceSchema.forTable(this.table).guard(dialect)) {
        statements.add(
            new ByteArrayResource(
                statement.getBytes(StandardCharsets.UTF_8),
                dialect.guardLocation() + " for table " + this.table));
      }
      Scripts guardScripts =
          new Scripts(statements)
              .continueOnError(scripts.isContinueOnError())
              .separator(ScriptUtils.EOF_STATEMENT_SEPARATOR)
              .encoding(StandardCharsets.UTF_8);
      again(() -> super.runScripts(guardScripts));
    }
  }

  /**
   * Runs {@code scripts} again when they fail, up to {@value #ATTEMPTS} times. Instances that start
   * together race on the same DDL (PostgreSQL: a duplicate key in {@code pg_type} for CREATE TABLE
   * IF NOT EXISTS, "tuple concurrently updated" for CREATE OR REPLACE FUNCTION; H2: "object already
   * exists" for CREATE TRIGGER IF NOT EXISTS); every statement may run again, and once the other
   * instance's DDL has committed they pass.
   */
  private static void again(Runnable scripts) {
    for (int attempt = 1; ; attempt++) {
      try {
        scripts.run();
        return;
      } catch (ScriptException ex) {
        if (attempt == ATTEMPTS) {
          throw ex;
        }
      }
    }
  }

  private void runTableScripts(Scripts scripts) {
    if (!this.defaultScript || this.table.equals(JdbcFence.DEFAULT_TABLE)) {
      super.runScripts(scripts);
      return;
    }
    // The shipped scripts name the default table; Spring Session's leave another name to the
    // user, the fence knows the statement for any name.
    List<Resource> renamed = new ArrayList<>();
    FenceDialect dialect = dialect(getDataSource());
    String statement = dialect.createTableStatement(this.table) + ";";
    renamed.add(
        new ByteArrayResource(
            statement.getBytes(StandardCharsets.UTF_8),
            dialect.schemaLocation() + " for table " + this.table));
    super.runScripts(
        new Scripts(renamed)
            .continueOnError(scripts.isContinueOnError())
            .separator(scripts.getSeparator())
            .encoding(scripts.getEncoding()));
  }

  private static DatabaseInitializationSettings settings(
      DataSource dataSource, FenceJdbcProperties properties) {
    DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
    String location = properties.getSchema();
    if (location.contains("@@platform@@")) {
      location = location.replace("@@platform@@", dialect(dataSource).platform());
    }
    settings.setSchemaLocations(List.of(location));
    settings.setMode(properties.getInitializeSchema());
    // The scripts create the table only if it is missing: a failure is real, and the start stops.
    settings.setContinueOnError(false);
    return settings;
  }

  private static FenceDialect dialect(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection()) {
      return FenceDialect.of(connection);
    } catch (SQLException ex) {
      throw new DataAccessResourceFailureException(
          "Cannot tell which database holds the conch fence table: " + ex.getMessage(), ex);
    }
  }
}
