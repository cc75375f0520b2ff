-- Delivery rollups at a 15-minute UTC grain: every timezone offset in use is a
-- multiple of 15 minutes, so these buckets add up exactly to hours, days and
-- months in any zone (Asia/Kolkata, Asia/Kathmandu included).
-- One row per ad and bucket with segment 'none', and one per value of each
-- segment: 'country', 'device', 'platform', 'product' (feed id and item id).
CREATE TABLE rollup_15m (
  ad_account_id VARCHAR NOT NULL,
  -- Start of the bucket: Unix microseconds // 900000000.
  bucket BIGINT NOT NULL,
  campaign_id VARCHAR,
  ad_group_id VARCHAR,
  ad_id VARCHAR,
  segment VARCHAR NOT NULL,
  -- NULL where the events did not say (e.g. no country); product rows use feed_value and item_value.
  segment_value VARCHAR,
  feed_value VARCHAR,
  item_value VARCHAR,
  impressions BIGINT NOT NULL,
  clicks BIGINT NOT NULL,
  spend_micros BIGINT NOT NULL
);
