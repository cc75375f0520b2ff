-- What the rule a quarantined row broke says of it ("user_id is required for
-- clicks and conversions"), beside its reason code. Rows quarantined before
-- this migration have none.
ALTER TABLE event_quarantine ADD COLUMN detail VARCHAR;
