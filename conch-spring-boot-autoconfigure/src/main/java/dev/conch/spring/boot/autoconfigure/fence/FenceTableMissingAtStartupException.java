package dev.conch.spring.boot.autoconfigure.fence;

import java.lang.reflect.Method;
import java.util.List;

/**
 * The fence table does not exist at start-up while {@code @Fenced} methods write through it: each
 * of their transactions would fail. Explained by {@link FenceTableMissingFailureAnalyzer}.
 */
class FenceTableMissingAtStartupException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final String table;

  private final String dataSource;

  private final String script;

  private final List<String> fencedMethods;

  private final String mode;

  FenceTableMissingAtStartupException(
      String table,
      String dataSource,
      String script,
      String mode,
      List<Method> fencedMethods,
      Throwable cause) {
    super(
        "The fence table '"
            + table
            + "' does not exist in "
            + dataSource
            + " and "
            + fencedMethods.size()
            + " @Fenced method(s) write through it",
        cause);
    this.table = table;
    this.dataSource = dataSource;
    this.script = script;
    this.mode = mode;
    this.fencedMethods =
        fencedMethods.stream()
            .map(method -> method.getDeclaringClass().getName() + "." + method.getName() + "()")
            .sorted()
            .toList();
  }

  /** The table, as {@code conch.fence.jdbc.table} names it. */
  String table() {
    return this.table;
  }

  /** The {@code DataSource}: its bean name and where it connects. */
  String dataSource() {
    return this.dataSource;
  }

  /** The script that creates the table: conch-jdbc's, or as configured. */
  String script() {
    return this.script;
  }

  /** {@code conch.fence.jdbc.initialize-schema}, lower case. */
  String mode() {
    return this.mode;
  }

  /** The {@code @Fenced} methods, as {@code Class.method()}. */
  List<String> fencedMethods() {
    return this.fencedMethods;
  }
}
