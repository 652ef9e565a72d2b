-- conch's fence table (conch-jdbc): one row per office, the newest fencing token a transaction offered.
-- Create it once per database; JdbcFence.forTable(name) and FenceDialect.createTableStatement(name) use another name.
CREATE TABLE IF NOT EXISTS conch_fence (
  office     VARCHAR(128) NOT NULL PRIMARY KEY,
  token      BIGINT NOT NULL,
  holder     VARCHAR(255) NOT NULL,
  updated_at TIMESTAMP WITH TIME ZONE NOT NULL
);
