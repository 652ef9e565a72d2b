package dev.conch.spring.boot.autoconfigure.fence;

import dev.conch.jdbc.JdbcFence;
import java.util.List;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up stopped because the fence table is missing: the table, the {@code
 * DataSource}, the {@code @Fenced} methods that would fail, and the two ways to create it.
 */
class FenceTableMissingFailureAnalyzer
    extends AbstractFailureAnalyzer<FenceTableMissingAtStartupException> {

  /** How many {@code @Fenced} methods the description names. */
  private static final int NAMED = 5;

  @Override
  protected FailureAnalysis analyze(
      Throwable rootFailure, FenceTableMissingAtStartupException cause) {
    List<String> methods = cause.fencedMethods();
    String named = String.join(", ", methods.subList(0, Math.min(NAMED, methods.size())));
    if (methods.size() > NAMED) {
      named += " and " + (methods.size() - NAMED) + " more";
    }
    String description =
        ("The conch fence table '%s' does not exist in %s. Every transaction of the @Fenced"
                + " methods (%s) would fail at its fence.")
            .formatted(cause.table(), cause.dataSource(), named);
    String forName =
        cause.table().equals(JdbcFence.DEFAULT_TABLE)
            ? ""
            : (" (it names the table %s: replace it by %s, or use"
                    + " FenceDialect.createTableStatement(\"%s\"))")
                .formatted(JdbcFence.DEFAULT_TABLE, cause.table(), cause.table());
    String action =
        ("Create the table, either:%n"
                + "    - let conch create it at start-up: set conch.fence.jdbc.initialize-schema=always"
                + " (it is '%s'%s); or%n"
                + "    - run the script %s with your schema migrations"
                + " (Flyway, Liquibase)%s.")
            .formatted(
                cause.mode(),
                cause.mode().equals("embedded") ? ", and this database is not embedded" : "",
                cause.script(),
                forName);
    return new FailureAnalysis(description, action, cause);
  }
}
