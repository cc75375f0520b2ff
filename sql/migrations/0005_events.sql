-- Event storage (EVENTS.md). Times are integer microseconds since the Unix
-- epoch (UTC). No unique index on events: loads dedup by anti-join on
-- (ad_account_id, event_id), which keeps bulk loads fast.

CREATE TABLE events (
  ad_account_id VARCHAR NOT NULL,
  event_id VARCHAR NOT NULL,
  type VARCHAR NOT NULL,
  ts_us BIGINT NOT NULL,
  ad_id VARCHAR,
  ad_group_id VARCHAR,
  campaign_id VARCHAR,
  user_id VARCHAR,
  country VARCHAR,
  device VARCHAR,
  platform VARCHAR,
  product_feed_id VARCHAR,
  product_item_id VARCHAR,
  cost_micros BIGINT NOT NULL,
  event_name VARCHAR,
  value DECIMAL(38, 9),
  currency VARCHAR,
  run_id VARCHAR NOT NULL,
  ingested_at_us BIGINT NOT NULL
);

-- Rows that broke a rule, with where they came from and why (never dropped silently).
CREATE TABLE event_quarantine (
  run_id VARCHAR NOT NULL,
  source VARCHAR NOT NULL,
  line_no BIGINT NOT NULL,
  reason VARCHAR NOT NULL,
  raw VARCHAR,
  quarantined_at_us BIGINT NOT NULL
);
CREATE INDEX event_quarantine_run_idx ON event_quarantine (run_id);
