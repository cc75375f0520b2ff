-- Calendar rollups: the 15-minute rollup summed per local day and per local
-- month of one timezone per account, so reports over days, months and long
-- ranges read a few rows per entity instead of 96 a day. `bucket` is the
-- unit's first quarter-hour (Unix seconds // 900); rows are per-load deltas
-- like rollup_15m (load_seq) and are merged by compaction the same way.
CREATE TABLE rollup_1d (
  ad_account_id VARCHAR NOT NULL,
  bucket BIGINT NOT NULL,
  campaign_id VARCHAR,
  ad_group_id VARCHAR,
  ad_id VARCHAR,
  segment VARCHAR NOT NULL,
  segment_value VARCHAR,
  feed_value VARCHAR,
  item_value VARCHAR,
  impressions BIGINT NOT NULL,
  clicks BIGINT NOT NULL,
  spend_micros BIGINT NOT NULL,
  load_seq BIGINT NOT NULL
);
CREATE TABLE rollup_1mo (
  ad_account_id VARCHAR NOT NULL,
  bucket BIGINT NOT NULL,
  campaign_id VARCHAR,
  ad_group_id VARCHAR,
  ad_id VARCHAR,
  segment VARCHAR NOT NULL,
  segment_value VARCHAR,
  feed_value VARCHAR,
  item_value VARCHAR,
  impressions BIGINT NOT NULL,
  clicks BIGINT NOT NULL,
  spend_micros BIGINT NOT NULL,
  load_seq BIGINT NOT NULL
);
-- The zone whose days and months an account's calendar rollups use: the
-- account's timezone when its first events loaded (or when rows loaded before
-- this migration were first summed). A later timezone change keeps it; the
-- query planner then uses only units that fit the requested buckets.
CREATE TABLE rollup_calendars (
  ad_account_id VARCHAR PRIMARY KEY,
  timezone VARCHAR NOT NULL
);
