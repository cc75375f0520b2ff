-- Shared pieces of the management API: idempotent creates, conversion event
-- settings and product feeds. List order comes from a per-table sequence
-- (`seq`), so keyset pages stay stable while rows are inserted.

CREATE TABLE idempotency_keys (
  ad_account_id VARCHAR NOT NULL,
  idem_key VARCHAR NOT NULL,
  route VARCHAR NOT NULL,
  -- SHA-256 of the canonical JSON of the request body.
  request_hash VARCHAR NOT NULL,
  response_status INTEGER NOT NULL,
  response_body VARCHAR NOT NULL,
  created_at_ms BIGINT NOT NULL,
  PRIMARY KEY (ad_account_id, idem_key)
);

CREATE SEQUENCE conversion_event_settings_seq START 1;
CREATE TABLE conversion_event_settings (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('conversion_event_settings_seq'),
  ad_account_id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  -- A standard event name, or 'custom' with custom_event_name set.
  event_type VARCHAR NOT NULL,
  custom_event_name VARCHAR,
  attribution_window_days INTEGER NOT NULL,
  archived BOOLEAN NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX conversion_event_settings_account_idx ON conversion_event_settings (ad_account_id);

CREATE SEQUENCE product_feeds_seq START 1;
CREATE TABLE product_feeds (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('product_feeds_seq'),
  ad_account_id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX product_feeds_account_idx ON product_feeds (ad_account_id);

CREATE TABLE product_feed_items (
  feed_id VARCHAR NOT NULL,
  item_id VARCHAR NOT NULL,
  ad_account_id VARCHAR NOT NULL,
  title VARCHAR,
  description VARCHAR,
  body VARCHAR,
  target_url VARCHAR,
  image_url VARCHAR,
  brand VARCHAR,
  seller_name VARCHAR,
  -- Decimal text in the account currency, e.g. '19.99'.
  price VARCHAR,
  availability VARCHAR,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  PRIMARY KEY (feed_id, item_id)
);
