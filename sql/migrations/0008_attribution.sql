-- Attribution of conversions (EVENTS.md, Attribution): one row per attributed
-- conversion and supported window pair (click window 7, 14 or 30 days; view
-- window 0 or 1 day). The touch's ad, ad group, campaign and segments are the
-- conversion's for reporting; both times are kept so reports can place a
-- conversion by the touch time (ad_event_time) or by its own (conversion_time).
CREATE TABLE attributions (
  ad_account_id VARCHAR NOT NULL,
  user_id VARCHAR NOT NULL,
  conversion_event_id VARCHAR NOT NULL,
  click_window INTEGER NOT NULL,
  view_window INTEGER NOT NULL,
  -- 'click' (click-through) or 'view' (view-through)
  kind VARCHAR NOT NULL,
  touch_event_id VARCHAR NOT NULL,
  ad_id VARCHAR,
  ad_group_id VARCHAR,
  campaign_id VARCHAR,
  country VARCHAR,
  device VARCHAR,
  platform VARCHAR,
  product_feed_id VARCHAR,
  product_item_id VARCHAR,
  touch_ts_us BIGINT NOT NULL,
  conversion_ts_us BIGINT NOT NULL,
  event_name VARCHAR,
  value DECIMAL(38, 9),
  currency VARCHAR
);
