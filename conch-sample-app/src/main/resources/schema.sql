-- The sample's own table: one row per report, written in the same transaction as the fence.
CREATE TABLE IF NOT EXISTS sample_report (
  report  BIGINT NOT NULL,
  token   BIGINT NOT NULL,
  holder  VARCHAR(255) NOT NULL,
  made_at TIMESTAMP NOT NULL
);
