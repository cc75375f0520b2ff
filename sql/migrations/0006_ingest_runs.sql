-- Ingest runs: what was asked to load, how far it got, and what came of it.
-- A run's files are loaded one by one; each file's load and its `done` mark
-- commit together, so a run resumed after a crash skips what is done.

CREATE TABLE ingest_runs (
  id VARCHAR PRIMARY KEY,
  -- Events must belong to this account (a key's account, ingest --account); NULL: any.
  ad_account_id VARCHAR,
  origin VARCHAR NOT NULL,
  -- queued, running, succeeded, failed
  status VARCHAR NOT NULL,
  error VARCHAR,
  created_at_ms BIGINT NOT NULL,
  started_at_ms BIGINT,
  finished_at_ms BIGINT
);

CREATE TABLE ingest_run_files (
  run_id VARCHAR NOT NULL,
  file_index INTEGER NOT NULL,
  path VARCHAR NOT NULL,
  format VARCHAR NOT NULL,
  source VARCHAR NOT NULL,
  done BOOLEAN NOT NULL,
  rows_read BIGINT NOT NULL,
  stored BIGINT NOT NULL,
  duplicates BIGINT NOT NULL,
  quarantined BIGINT NOT NULL,
  -- JSON object reason -> count.
  quarantined_by_reason VARCHAR NOT NULL,
  PRIMARY KEY (run_id, file_index)
);
