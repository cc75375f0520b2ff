-- Campaigns, ad groups, ads and custom audiences.

CREATE SEQUENCE custom_audiences_seq START 1;
CREATE TABLE custom_audiences (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('custom_audiences_seq'),
  ad_account_id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  description VARCHAR,
  file_id VARCHAR NOT NULL,
  filename VARCHAR NOT NULL,
  mimetype VARCHAR NOT NULL,
  file_size BIGINT NOT NULL,
  identifier_type VARCHAR NOT NULL,
  -- processing, ready, too_small, failed, archived
  status VARCHAR NOT NULL,
  failure_reason VARCHAR,
  -- Distinct identifiers found in the list; NULL until processed.
  size BIGINT,
  -- Bumped whenever the membership changes; campaign saves compare it (409 on a race).
  membership_version INTEGER NOT NULL DEFAULT 0,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX custom_audiences_account_idx ON custom_audiences (ad_account_id);

-- Members as SHA-256 of the normalized identifier: lists are never kept in clear text.
CREATE TABLE custom_audience_members (
  audience_id VARCHAR NOT NULL,
  member_hash VARCHAR NOT NULL
);

CREATE SEQUENCE campaigns_seq START 1;
CREATE TABLE campaigns (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('campaigns_seq'),
  ad_account_id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  description VARCHAR,
  status VARCHAR NOT NULL,
  start_time BIGINT,
  end_time BIGINT,
  lifetime_spend_limit_micros BIGINT NOT NULL,
  bidding_type VARCHAR NOT NULL,
  -- JSON array of setting ids.
  conversion_event_setting_ids VARCHAR NOT NULL,
  mode VARCHAR,
  product_feed_id VARCHAR,
  -- JSON of the targeting as requested (location ids, not expanded entries).
  targeting VARCHAR NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX campaigns_account_idx ON campaigns (ad_account_id);

CREATE SEQUENCE ad_groups_seq START 1;
CREATE TABLE ad_groups (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('ad_groups_seq'),
  ad_account_id VARCHAR NOT NULL,
  campaign_id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  description VARCHAR,
  -- JSON array of strings.
  context_hints VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  billing_event_type VARCHAR NOT NULL,
  max_bid_micros BIGINT NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX ad_groups_account_idx ON ad_groups (ad_account_id);

CREATE SEQUENCE ads_seq START 1;
CREATE TABLE ads (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('ads_seq'),
  ad_account_id VARCHAR NOT NULL,
  ad_group_id VARCHAR NOT NULL,
  campaign_id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  review_status VARCHAR NOT NULL,
  review_reason VARCHAR,
  -- Bumped by every creative change; a review job only decides the review it was queued for.
  review_seq INTEGER NOT NULL DEFAULT 0,
  review_requested_at_ms BIGINT,
  creative_type VARCHAR NOT NULL,
  title VARCHAR NOT NULL,
  body VARCHAR,
  target_url VARCHAR NOT NULL,
  file_id VARCHAR NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX ads_account_idx ON ads (ad_account_id);
