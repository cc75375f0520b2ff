-- Webhooks (spec: Events; COMPAT.md: Webhook endpoints). An event and one
-- delivery per subscribed endpoint are written in the same transaction as the
-- change that caused them (an outbox); jobs only carry deliveries out, so
-- Redis never holds the only copy of one.

CREATE SEQUENCE webhook_endpoints_seq START 1;
CREATE TABLE webhook_endpoints (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('webhook_endpoints_seq'),
  ad_account_id VARCHAR NOT NULL,
  name VARCHAR NOT NULL,
  url VARCHAR NOT NULL,
  -- JSON array of subscribed event types.
  event_types VARCHAR NOT NULL,
  -- enabled, disabled
  status VARCHAR NOT NULL,
  -- Why it is disabled: requested (an update), endpoint_gone (it answered 410).
  disabled_reason VARCHAR,
  -- whsec_ + base64; kept in clear because every attempt is signed with it.
  secret VARCHAR NOT NULL,
  -- After a rotation with overlap: the old secret, signing too until it expires.
  previous_secret VARCHAR,
  previous_secret_expires_at_ms BIGINT,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (ad_account_id);

CREATE TABLE webhook_events (
  id VARCHAR PRIMARY KEY,
  ad_account_id VARCHAR NOT NULL,
  type VARCHAR NOT NULL,
  -- data.id: the resource the event is about.
  resource_id VARCHAR NOT NULL,
  -- The exact body sent on every attempt.
  payload VARCHAR NOT NULL,
  -- Sent by POST /webhook_endpoints/{id}/test with sample data.
  is_test BOOLEAN NOT NULL,
  created_at_ms BIGINT NOT NULL
);

-- List order and the delivery relay follow seq (commit order: writes are serialized).
CREATE SEQUENCE webhook_deliveries_seq START 1;
CREATE TABLE webhook_deliveries (
  id VARCHAR PRIMARY KEY,
  seq BIGINT NOT NULL DEFAULT nextval('webhook_deliveries_seq'),
  ad_account_id VARCHAR NOT NULL,
  endpoint_id VARCHAR NOT NULL,
  event_id VARCHAR NOT NULL,
  -- pending, succeeded, failed
  status VARCHAR NOT NULL,
  -- Attempts made (recorded after each one).
  attempts INTEGER NOT NULL,
  -- While pending: when the next attempt is due.
  next_attempt_at_ms BIGINT,
  first_attempt_at_ms BIGINT,
  last_attempt_at_ms BIGINT,
  -- First attempt + 72 h (times ADSVC_WEBHOOK_TIME_SCALE); set by the first attempt.
  deadline_at_ms BIGINT,
  last_status_code INTEGER,
  last_error VARCHAR,
  completed_at_ms BIGINT,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id);

-- Spend limits already announced (spend_limit.reached): a daily limit once per
-- local day, a date range window once ('' as the day).
CREATE TABLE webhook_spend_limit_marks (
  limit_id VARCHAR NOT NULL,
  day VARCHAR NOT NULL,
  ad_account_id VARCHAR NOT NULL,
  reached_at_ms BIGINT NOT NULL,
  PRIMARY KEY (limit_id, day)
);
