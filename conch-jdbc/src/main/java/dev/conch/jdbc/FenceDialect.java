package dev.conch.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Locale;

/**
 * The databases the fence speaks to, each with its statements and its schema script.
 *
 * <p>The schema scripts ship in this jar at {@link #schemaLocation()} ({@code
 * dev/conch/jdbc/schema-<platform>.sql}, with Spring Boot's platform names) and create the table
 * under the fixed name {@value JdbcFence#DEFAULT_TABLE}, as Spring Session's scripts use fixed
 * names; {@link #createTableStatement(String)} gives the same statement for another table name.
 */
public enum FenceDialect {

  /** PostgreSQL 12 or later. */
  POSTGRESQL("postgresql"),

  /** MySQL 8 or later (InnoDB). */
  MYSQL("mysql"),

  /** MariaDB 10.5 or later (InnoDB). */
  MARIADB("mariadb"),

  /** H2 2.x, embedded or server. */
  H2("h2");

  private final String platform;

  FenceDialect(String platform) {
    this.platform = platform;
  }

  /**
   * The dialect of the database that {@code metaData} describes, from its product name.
   *
   * @throws SQLFeatureNotSupportedException for a database the fence does not support, naming it
   *     and the supported ones
   */
  public static FenceDialect of(DatabaseMetaData metaData) throws SQLException {
    String product = metaData.getDatabaseProductName();
    String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (name.contains("postgresql")) {
      return POSTGRESQL;
    }
    if (name.contains("mariadb")) {
      return MARIADB;
    }
    if (name.contains("mysql")) {
      // MariaDB Connector/J names a MariaDB server "MariaDB", but older drivers and MySQL
      // Connector/J say "MySQL" for both; the version string tells them apart.
      String version = metaData.getDatabaseProductVersion();
      return version != null && version.toLowerCase(Locale.ROOT).contains("mariadb")
          ? MARIADB
          : MYSQL;
    }
    if (name.equals("h2")) {
      return H2;
    }
    throw new SQLFeatureNotSupportedException(
        "the conch fence does not support the database '"
            + product
            + "': it supports PostgreSQL, MySQL, MariaDB and H2");
  }

  /**
   * The dialect of the database behind {@code connection}.
   *
   * @throws SQLFeatureNotSupportedException for a database the fence does not support
   */
  public static FenceDialect of(Connection connection) throws SQLException {
    return of(connection.getMetaData());
  }

  /** The platform name, as Spring Boot's {@code @@platform@@} spells it ({@code postgresql}). */
  public String platform() {
    return platform;
  }

  /**
   * Where the schema script of this dialect is on the class path: {@code
   * dev/conch/jdbc/schema-<platform>.sql}. It creates {@value JdbcFence#DEFAULT_TABLE} if it does
   * not exist.
   */
  public String schemaLocation() {
    return "dev/conch/jdbc/schema-" + platform + ".sql";
  }

  /**
   * Where the guard script of this dialect is on the class path: {@code
   * dev/conch/jdbc/guard-<platform>.sql}. It installs a trigger on {@value JdbcFence#DEFAULT_TABLE}
   * that refuses a {@code DELETE} and an {@code UPDATE} lowering a token ({@link FenceSchema#guard}
   * gives its statements for another table name). Its statements are separated by a line holding
   * only {@code ;;} (Spring: {@code separator=;;}; the {@code mysql} client: {@code
   * --delimiter=';;'}).
   */
  public String guardLocation() {
    return "dev/conch/jdbc/guard-" + platform + ".sql";
  }

  /**
   * The statement of the schema script for the table {@code table} instead of {@value
   * JdbcFence#DEFAULT_TABLE}: {@code CREATE TABLE IF NOT EXISTS}, one statement, no trailing
   * semicolon.
   *
   * @param table an SQL identifier, optionally schema-qualified ({@code billing.conch_fence})
   * @throws dev.conch.InvalidArgumentException when {@code table} is not one
   */
  public String createTableStatement(String table) {
    String checked = FenceTable.require(table);
    String script = script().strip();
    if (script.endsWith(";")) {
      script = script.substring(0, script.length() - 1);
    }
    return script.replace(JdbcFence.DEFAULT_TABLE, checked);
  }

  private String script() {
    try (InputStream in =
        FenceDialect.class.getClassLoader().getResourceAsStream(schemaLocation())) {
      if (in == null) {
        throw new IllegalStateException(schemaLocation() + " is missing from conch-jdbc's jar");
      }
      // The scripts start with comment lines; the statement is what follows them.
      StringBuilder statement = new StringBuilder();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.strip().startsWith("--")) {
          statement.append(line).append('\n');
        }
      }
      return statement.toString();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + schemaLocation(), e);
    }
  }
}
