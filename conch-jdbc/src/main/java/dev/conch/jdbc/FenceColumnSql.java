package dev.conch.jdbc;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The statements of the fence column's trigger, per dialect. The lock rules are those of {@link
 * JdbcFence#check}: on PostgreSQL a shared advisory lock on the office, then a read of its row by a
 * statement that starts after the lock ({@code FOR SHARE} above READ COMMITTED), and for a raise
 * the exclusive advisory lock and an upsert that never lowers; on MySQL and MariaDB a shared row
 * lock, and for a raise {@code INSERT IGNORE} and an {@code UPDATE} that never lowers; on H2 {@code
 * FOR UPDATE}. The names {@code conch_fence} in the statements below are replaced by the fence
 * table's.
 */
final class FenceColumnSql {

  /**
   * The PL/pgSQL function of one table: {function}, {column}, {missing} and {office} (a literal or
   * NEW.column) are filled in. The column is written in, not passed as a trigger argument: reading
   * NEW by a column name given at run time (to_jsonb) cost a third of the trigger's time.
   */
  private static final String POSTGRESQL_FUNCTION =
      """
      CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        fence_office text := {office};
        offered bigint := NEW.{column};
        current_token bigint;
        current_holder text;
        raised bigint;
      BEGIN
        IF offered IS NULL OR fence_office IS NULL THEN
          RAISE EXCEPTION USING ERRCODE = 'NC002',
            MESSAGE = format('the write to %s carries no fencing token for office ''%s'' ({missing} is NULL):'
              || ' a write that does not say its term may not pass', TG_TABLE_NAME,
              coalesce(fence_office, 'NULL'));
        END IF;
        PERFORM pg_advisory_xact_lock_shared(1668247139, hashtext(fence_office));
        IF current_setting('transaction_isolation') = 'read committed' THEN
          SELECT token, holder INTO current_token, current_holder
            FROM conch_fence WHERE office = fence_office;
        ELSE
          SELECT token, holder INTO current_token, current_holder
            FROM conch_fence WHERE office = fence_office FOR SHARE;
        END IF;
        IF current_token = offered THEN
          RETURN NEW;
        END IF;
        IF current_token IS NULL OR current_token < offered THEN
          PERFORM pg_advisory_xact_lock(1668247139, hashtext(fence_office));
          INSERT INTO conch_fence AS f (office, token, holder, updated_at)
            VALUES (fence_office, offered,
              left(coalesce(nullif(current_setting('conch.holder', true), ''), session_user::text), 255),
              CURRENT_TIMESTAMP)
            ON CONFLICT (office) DO UPDATE SET token = EXCLUDED.token, holder = EXCLUDED.holder,
              updated_at = EXCLUDED.updated_at
            WHERE f.token <= EXCLUDED.token;
          GET DIAGNOSTICS raised = ROW_COUNT;
          IF raised > 0 THEN
            RETURN NEW;
          END IF;
          SELECT token, holder INTO current_token, current_holder
            FROM conch_fence WHERE office = fence_office;
        END IF;
        RAISE EXCEPTION USING ERRCODE = 'NC001',
          MESSAGE = format('stale fencing token %s for office ''%s'': the fence holds token %s of holder'
            || ' ''%s''; a newer leader took over, roll this transaction back',
            offered, fence_office, current_token, current_holder),
          DETAIL = format('a write to %s, token column {column}', TG_TABLE_NAME);
      END
      $$""";

  /**
   * One trigger of MySQL and MariaDB; {event}, {office} and the names are filled in. The steady
   * state's read names the fence table under an alias of its own: a statement with a trigger opens
   * each table its triggers use once per name, locked for the strongest use, and the trigger's
   * UPDATE of the fence table would turn the read's shared row lock into an exclusive one (every
   * write of a term would queue behind the others).
   */
  private static final String MYSQL_TRIGGER =
      """
      {create} TRIGGER {trigger} BEFORE {event} ON {table} FOR EACH ROW
      BEGIN
        DECLARE fence_office VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT {office};
        DECLARE offered BIGINT DEFAULT NEW.{column};
        DECLARE current_token BIGINT DEFAULT NULL;
        DECLARE current_holder VARCHAR(255) CHARACTER SET utf8mb4 DEFAULT NULL;
        DECLARE message VARCHAR(512) CHARACTER SET utf8mb4;
        DECLARE CONTINUE HANDLER FOR NOT FOUND SET current_token = NULL;
        IF offered IS NULL OR fence_office IS NULL THEN
          SET message = CONCAT('the write to {table} carries no fencing token for office ''',
            IFNULL(fence_office, 'NULL'), ''' ({missing} is NULL): a write that does not say its term may not pass');
          SIGNAL SQLSTATE 'NC002' SET MESSAGE_TEXT = message;
        END IF;
        SELECT token, holder INTO current_token, current_holder
          FROM conch_fence AS fence_read WHERE office = fence_office LOCK IN SHARE MODE;
        IF current_token IS NULL OR current_token < offered THEN
          IF current_token IS NULL THEN
            INSERT IGNORE INTO conch_fence (office, token, holder, updated_at)
              VALUES (fence_office, offered, LEFT(IFNULL(@conch_holder, USER()), 255), CURRENT_TIMESTAMP(6));
          END IF;
          UPDATE conch_fence SET token = offered, holder = LEFT(IFNULL(@conch_holder, USER()), 255),
            updated_at = CURRENT_TIMESTAMP(6) WHERE office = fence_office AND token <= offered;
          SELECT token, holder INTO current_token, current_holder
            FROM conch_fence WHERE office = fence_office LOCK IN SHARE MODE;
        END IF;
        IF current_token > offered THEN
          SET message = CONCAT('stale fencing token ', offered, ' for office ''', fence_office,
            ''': the fence holds token ', current_token, ' of holder ''', current_holder,
            '''; a newer leader took over, roll this transaction back');
          SIGNAL SQLSTATE 'NC001' SET MESSAGE_TEXT = message;
        END IF;
      END""";

  private FenceColumnSql() {}

  /**
   * The statements for {@code table}; exactly one of {@code office} (a constant) and {@code
   * officeColumn} is given. Every name has been checked to be an SQL identifier.
   */
  static List<String> statements(
      FenceDialect dialect,
      String fenceTable,
      String table,
      String column,
      @Nullable String office,
      @Nullable String officeColumn) {
    return switch (dialect) {
      case POSTGRESQL -> {
        String function = suffixed(table, "_conch_column", 63);
        String officeSql =
            officeColumn == null
                ? postgresLiteral(office == null ? "" : office)
                : "NEW." + officeColumn;
        yield List.of(
            POSTGRESQL_FUNCTION
                .replace(JdbcFence.DEFAULT_TABLE, fenceTable)
                .replace("{function}", function)
                .replace("{column}", column)
                .replace(
                    "{missing}", officeColumn == null ? column : column + " or " + officeColumn)
                .replace("{office}", officeSql),
            "DROP TRIGGER IF EXISTS conch_column ON " + table,
            "CREATE TRIGGER conch_column BEFORE INSERT OR UPDATE ON "
                + table
                + " FOR EACH ROW EXECUTE FUNCTION "
                + function
                + "()");
      }
      case MYSQL, MARIADB -> {
        String officeSql =
            officeColumn == null
                ? mysqlLiteral(office == null ? "" : office)
                : "NEW." + officeColumn;
        String missing = officeColumn == null ? column : column + " or " + officeColumn;
        String insert = suffixed(table, "_conch_ins", 64);
        String update = suffixed(table, "_conch_upd", 64);
        String template =
            MYSQL_TRIGGER
                .replace(JdbcFence.DEFAULT_TABLE, fenceTable)
                .replace(
                    "{create}", dialect == FenceDialect.MARIADB ? "CREATE OR REPLACE" : "CREATE")
                .replace("{table}", table)
                .replace("{column}", column)
                .replace("{missing}", missing)
                .replace("{office}", officeSql);
        if (dialect == FenceDialect.MYSQL) {
          // MySQL refuses a MESSAGE_TEXT over 128 characters (MariaDB takes 512): cut it, so that
          // the refusal keeps its SQLState.
          template =
              template.replace(
                  "  SIGNAL SQLSTATE", "  SET message = LEFT(message, 128);\n    SIGNAL SQLSTATE");
        }
        String insertTrigger = template.replace("{trigger}", insert).replace("{event}", "INSERT");
        String updateTrigger = template.replace("{trigger}", update).replace("{event}", "UPDATE");
        yield dialect == FenceDialect.MARIADB
            ? List.of(insertTrigger, updateTrigger)
            : List.of(
                "DROP TRIGGER IF EXISTS " + insert,
                insertTrigger,
                "DROP TRIGGER IF EXISTS " + update,
                updateTrigger);
      }
      case H2 -> {
        String trigger = table + "_CONCH_FENCE";
        String remark =
            H2FenceColumn.REMARK_PREFIX
                + " fence="
                + fenceTable
                + " column="
                + column
                + (officeColumn == null ? " office=" + office : " officeColumn=" + officeColumn);
        yield List.of(
            "DROP TRIGGER IF EXISTS " + trigger,
            "CREATE TRIGGER "
                + trigger
                + " BEFORE INSERT, UPDATE ON "
                + table
                + " FOR EACH ROW CALL '"
                + H2FenceColumn.class.getName()
                + "'",
            "COMMENT ON TRIGGER " + trigger + " IS '" + remark.replace("'", "''") + "'");
      }
    };
  }

  /** A name of at most {@code max} characters in the table's schema: the table's, and a suffix. */
  private static String suffixed(String table, String suffix, int max) {
    int dot = table.lastIndexOf('.');
    String schema = table.substring(0, dot + 1);
    String name = table.substring(dot + 1);
    if (name.length() + suffix.length() > max) {
      name = name.substring(0, max - suffix.length());
    }
    return schema + name + suffix;
  }

  /** A PostgreSQL string literal that means the same whatever standard_conforming_strings says. */
  private static String postgresLiteral(String text) {
    return "E'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
  }

  /** A MySQL/MariaDB string literal that means the same whatever the SQL mode says. */
  private static String mysqlLiteral(String text) {
    return "CONVERT(X'"
        + HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8))
        + "' USING utf8mb4) COLLATE utf8mb4_bin";
  }
}
