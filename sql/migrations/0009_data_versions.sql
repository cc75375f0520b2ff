-- Data versions for snapshot reads (GET insights pagination): every event load
-- that commits takes the next sequence number. Rollup rows carry the load that
-- added them (rollups are sums of per-load deltas), and attribution rows the
-- loads between which they held (valid_from inclusive, valid_to exclusive;
-- NULL: still current). A query at watermark W reads exactly the data of the
-- loads up to W, whatever commits while a client pages.
CREATE SEQUENCE data_load_seq START 1;
CREATE TABLE data_loads (
  seq BIGINT PRIMARY KEY,
  run_id VARCHAR NOT NULL,
  committed_at_ms BIGINT NOT NULL
);
ALTER TABLE rollup_15m ADD COLUMN load_seq BIGINT DEFAULT 0;
ALTER TABLE attributions ADD COLUMN valid_from BIGINT DEFAULT 0;
ALTER TABLE attributions ADD COLUMN valid_to BIGINT;
-- Compaction merges the rollup rows of loads up to a horizon (loads committed
-- long enough ago that no live cursor reads before them); cursors older than
-- the latest horizon are refused.
CREATE TABLE data_compactions (
  horizon BIGINT NOT NULL,
  compacted_at_ms BIGINT NOT NULL
);
