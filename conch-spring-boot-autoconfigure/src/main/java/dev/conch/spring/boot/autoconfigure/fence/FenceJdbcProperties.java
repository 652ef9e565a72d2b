package dev.conch.spring.boot.autoconfigure.fence;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration of conch's fence in the application's own database ({@code conch.fence.jdbc.*}).
 */
@ConfigurationProperties("conch.fence.jdbc")
public class FenceJdbcProperties {

  /** The default location of the schema scripts in conch-jdbc's jar. */
  public static final String DEFAULT_SCHEMA_LOCATION =
      "classpath:dev/conch/jdbc/schema-@@platform@@.sql";

  /** Name of the fence table, optionally schema-qualified. */
  private String table = "conch_fence";

  /** Database schema initialization mode of the fence table. */
  private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

  /** Path to the SQL file that creates the fence table; @@platform@@ is the database's name. */
  private String schema = DEFAULT_SCHEMA_LOCATION;

  /**
   * Whether the schema initialization also installs the guard on the fence table (a trigger that
   * refuses a DELETE and an UPDATE lowering a token; dev/conch/jdbc/guard-@@platform@@.sql).
   */
  private boolean guard = true;

  public String getTable() {
    return this.table;
  }

  public void setTable(String table) {
    this.table = table;
  }

  public DatabaseInitializationMode getInitializeSchema() {
    return this.initializeSchema;
  }

  public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
    this.initializeSchema = initializeSchema;
  }

  public boolean isGuard() {
    return this.guard;
  }

  public void setGuard(boolean guard) {
    this.guard = guard;
  }

  public String getSchema() {
    return this.schema;
  }

  public void setSchema(String schema) {
    this.schema = schema;
  }
}
