-- Foundation: ad accounts, their API keys, and uploaded files.
-- Times are Unix milliseconds (BIGINT); the API shows seconds.

CREATE SEQUENCE ad_accounts_seq START 1;

CREATE TABLE ad_accounts (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('ad_accounts_seq'),
  name VARCHAR NOT NULL,
  url VARCHAR NOT NULL,
  timezone VARCHAR NOT NULL,
  currency_code VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  review_status VARCHAR NOT NULL,
  review_reason VARCHAR,
  -- Bumped by every brand submission; a review job only decides the review it was queued for.
  review_seq INTEGER NOT NULL DEFAULT 0,
  review_requested_at_ms BIGINT,
  favicon_file_id VARCHAR,
  brand_enabled BOOLEAN NOT NULL,
  conversion_bidding_enabled BOOLEAN NOT NULL,
  product_segments_enabled BOOLEAN NOT NULL,
  zero_impression_products_enabled BOOLEAN NOT NULL,
  postpaid_invoice BOOLEAN NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);

CREATE TABLE api_keys (
  id VARCHAR PRIMARY KEY,
  ad_account_id VARCHAR NOT NULL,
  -- SHA-256 of the whole key, hex; the key itself is shown once and never stored.
  secret_hash VARCHAR NOT NULL,
  billing BOOLEAN NOT NULL,
  created_at_ms BIGINT NOT NULL
);

CREATE TABLE files (
  id VARCHAR PRIMARY KEY,
  ad_account_id VARCHAR NOT NULL,
  -- NULL: a creative image; else 'account_favicon' or 'custom_audience'.
  purpose VARCHAR,
  filename VARCHAR,
  mime_type VARCHAR NOT NULL,
  size_bytes BIGINT NOT NULL,
  width INTEGER,
  height INTEGER,
  sha256 VARCHAR NOT NULL,
  storage_path VARCHAR NOT NULL,
  source_url VARCHAR,
  created_at_ms BIGINT NOT NULL
);
CREATE INDEX files_account_idx ON files (ad_account_id);
