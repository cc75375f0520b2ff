-- Account spending limits (spec: Account spending limits). Dates are local
-- dates of the account timezone, 'YYYY-MM-DD'; end dates are exclusive.

CREATE TABLE spend_limit_configs (
  ad_account_id VARCHAR PRIMARY KEY,
  -- Bumped by every change to the account's windows or daily limit.
  revision INTEGER NOT NULL
);

CREATE TABLE spend_limit_windows (
  window_id VARCHAR PRIMARY KEY,
  ad_account_id VARCHAR NOT NULL,
  start_date VARCHAR NOT NULL,
  end_date VARCHAR NOT NULL,
  amount_micros BIGINT NOT NULL,
  name VARCHAR,
  io_id VARCHAR,
  -- Deleted windows stay for history; they take part in no rule.
  deleted BOOLEAN NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX spend_limit_windows_account_idx ON spend_limit_windows (ad_account_id);

CREATE TABLE daily_spend_limits (
  id VARCHAR PRIMARY KEY,
  ad_account_id VARCHAR NOT NULL,
  amount_micros BIGINT NOT NULL,
  start_date VARCHAR NOT NULL,
  end_date VARCHAR,
  -- Removed limits stay for history (and to require start_date on the next one).
  removed BOOLEAN NOT NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE INDEX daily_spend_limits_account_idx ON daily_spend_limits (ad_account_id);

-- Billable spend per account-local day, written by the event pipeline
-- (sum of cost_micros of impressions and clicks whose time falls on that day).
CREATE TABLE account_daily_spend (
  ad_account_id VARCHAR NOT NULL,
  day VARCHAR NOT NULL,
  spent_micros BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL,
  PRIMARY KEY (ad_account_id, day)
);
