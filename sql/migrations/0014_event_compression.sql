-- Each string column of events names the one compression that suits it,
-- since writing events is the largest single cost of a load, and much of it
-- went to DuckDB trying every method on every column segment before picking
-- one: dictionary for the columns of few values (the account, the ad, the
-- product), FSST for the ids that are all different (the event, the user).
-- These are the methods DuckDB picked by itself on generated events, so the
-- file stays as small; writing 5M events took 2.5 s instead of 3.4 s, and
-- reads are as fast as before (bench data, 2 cores).
--
-- DuckDB cannot change a column's compression in place, so the table is made
-- anew, with the same columns in the same order, and the stored events are
-- copied over in the order they were stored.
CREATE TABLE events_compressed (
  ad_account_id VARCHAR NOT NULL USING COMPRESSION dictionary,
  event_id VARCHAR NOT NULL USING COMPRESSION fsst,
  type event_type NOT NULL,
  ts_us BIGINT NOT NULL,
  ad_id VARCHAR USING COMPRESSION dictionary,
  user_id VARCHAR USING COMPRESSION fsst,
  country country_code,
  device event_device,
  platform event_platform,
  product_feed_id VARCHAR USING COMPRESSION dictionary,
  product_item_id VARCHAR USING COMPRESSION dictionary,
  cost_micros BIGINT NOT NULL,
  event_name VARCHAR,
  value DECIMAL(38, 9),
  currency VARCHAR,
  run_id VARCHAR NOT NULL,
  ingested_at_us BIGINT NOT NULL,
  key_hash UBIGINT
);
INSERT INTO events_compressed SELECT * FROM events;
DROP TABLE events;
ALTER TABLE events_compressed RENAME TO events;
