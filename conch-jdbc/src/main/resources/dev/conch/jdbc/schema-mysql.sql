-- conch's fence table (conch-jdbc): one row per office, the newest fencing token a transaction offered.
-- Create it once per database; JdbcFence.forTable(name) and FenceDialect.createTableStatement(name) use another name.
-- InnoDB for its row locks; a binary collation so that offices differing only in case stay apart.
CREATE TABLE IF NOT EXISTS conch_fence (
  office     VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  token      BIGINT NOT NULL,
  holder     VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,
  updated_at TIMESTAMP(6) NOT NULL
) ENGINE=InnoDB;
