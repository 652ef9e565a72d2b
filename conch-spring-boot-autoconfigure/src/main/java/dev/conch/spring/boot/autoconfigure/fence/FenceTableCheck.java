package dev.conch.spring.boot.autoconfigure.fence;

import dev.conch.jdbc.FenceDialect;
import dev.conch.jdbc.FenceTableMissingException;
import dev.conch.jdbc.JdbcFence;
import dev.conch.spring.fence.FencedAnnotationBeanPostProcessor;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Checks at start-up, with one query, that the fence table exists, once every singleton is made (so
 * after the schema initializer, Flyway and Liquibase). Without it, the first sign of a missing
 * table would be a failed transaction at each fenced write.
 *
 * <p>A missing table stops the start when the application has {@code @Fenced} methods: each of
 * their transactions would fail, and conch fails closed, so it is better said before the
 * application takes traffic, once, than at every write ({@link FenceTableMissingFailureAnalyzer}).
 * Without {@code @Fenced} methods the fence may be used in code ({@code TransactionFence}) or not
 * at all (conch-jdbc on the class path, nothing fenced yet): one WARN, and the start goes on. A
 * database that cannot be asked is one WARN too: whether the table exists is then unknown, and the
 * fence fails closed at its first use anyway.
 */
final class FenceTableCheck implements SmartInitializingSingleton {

  private static final Log logger = LogFactory.getLog(FenceTableCheck.class);

  /** The office the check reads: any valid name; the query's answer does not matter. */
  private static final String PROBE = "conch-startup-check";

  private final DataSource dataSource;

  private final @Nullable String dataSourceName;

  private final JdbcFence fence;

  private final FenceJdbcProperties properties;

  private final @Nullable FencedAnnotationBeanPostProcessor fencedMethods;

  FenceTableCheck(
      DataSource dataSource,
      @Nullable String dataSourceName,
      JdbcFence fence,
      FenceJdbcProperties properties,
      @Nullable FencedAnnotationBeanPostProcessor fencedMethods) {
    this.dataSource = dataSource;
    this.dataSourceName = dataSourceName;
    this.fence = fence;
    this.properties = properties;
    this.fencedMethods = fencedMethods;
  }

  @Override
  public void afterSingletonsInstantiated() {
    String where = "the DataSource" + ((dataSourceName != null) ? " '" + dataSourceName + "'" : "");
    String script = "the schema script";
    try (Connection connection = this.dataSource.getConnection()) {
      DatabaseMetaData metaData = connection.getMetaData();
      where += " (" + metaData.getURL() + ", " + metaData.getDatabaseProductName() + ")";
      script = script(FenceDialect.of(connection));
      this.fence.currentToken(connection, PROBE);
      return;
    } catch (FenceTableMissingException missing) {
      List<Method> methods =
          (this.fencedMethods != null)
              ? List.copyOf(this.fencedMethods.fencedMethods())
              : List.of();
      String table = this.fence.table();
      if (!methods.isEmpty()) {
        String mode = this.properties.getInitializeSchema().name().toLowerCase(Locale.ROOT);
        throw new FenceTableMissingAtStartupException(table, where, script, mode, methods, missing);
      }
      logger.warn(
          "The conch fence table '"
              + table
              + "' does not exist in "
              + where
              + ": every TransactionFence.fence() will fail until it does. Set"
              + " conch.fence.jdbc.initialize-schema=always, or run the script "
              + script
              + " with your schema migrations");
    } catch (SQLException | RuntimeException ex) {
      logger.warn(
          "Could not check that the conch fence table '"
              + this.fence.table()
              + "' exists in "
              + where
              + ": "
              + ex.getMessage());
    }
  }

  private String script(FenceDialect dialect) {
    String location = this.properties.getSchema();
    if (location.equals(FenceJdbcProperties.DEFAULT_SCHEMA_LOCATION)) {
      return dialect.schemaLocation() + " of conch-jdbc's jar";
    }
    return location.replace("@@platform@@", dialect.platform());
  }
}
