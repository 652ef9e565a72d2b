package dev.conch.jdbc;

import dev.conch.InvalidArgumentException;
import java.util.regex.Pattern;

/** The check of a fence table name: it is written into SQL, so only plain identifiers pass. */
final class FenceTable {

  /** What {@link #require(String)} accepts, for its refusal. */
  static final String ACCEPTED =
      "an SQL identifier of 1 to 63 letters, digits and '_', not starting with a digit,"
          + " optionally schema-qualified (e.g. conch_fence or billing.conch_fence)";

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  private FenceTable() {}

  /** Returns {@code table} when it is a plain, optionally schema-qualified, identifier. */
  static String require(String table) {
    if (table == null) {
      throw new InvalidArgumentException("fence table", null, ACCEPTED);
    }
    String[] parts = table.split("\\.", -1);
    if (parts.length > 2) {
      throw new InvalidArgumentException("fence table", table, ACCEPTED);
    }
    for (String part : parts) {
      if (!IDENTIFIER.matcher(part).matches()) {
        throw new InvalidArgumentException("fence table", table, ACCEPTED);
      }
    }
    return table;
  }
}
