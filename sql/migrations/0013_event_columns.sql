-- Stored events get narrower, since writing them is most of a load's cost
-- and every string column costs about as much to write as all the integers
-- together.
--
-- Fields of few values become ENUMs: a byte each instead of a string. The
-- values are the contract's (src/ingest/event-contract.ts; a test keeps the
-- two lists equal); a country is any two capital letters. Compare with a
-- value of the type (`'click'::event_type`), not bare text: against text,
-- DuckDB casts every row's value to text first.
CREATE TYPE event_type AS ENUM ('impression', 'click', 'conversion');
CREATE TYPE event_device AS ENUM ('mobile', 'desktop', 'tablet', 'other');
CREATE TYPE event_platform AS ENUM ('android_app', 'android_web', 'desktop_web', 'ios_app', 'ios_web', 'web');
CREATE TYPE country_code AS ENUM (SELECT chr((65 + a.a)::INTEGER) || chr((65 + b.b)::INTEGER) FROM range(26) a(a), range(26) b(b) ORDER BY 1);
ALTER TABLE events ALTER COLUMN type SET DATA TYPE event_type;
ALTER TABLE events ALTER COLUMN country SET DATA TYPE country_code;
ALTER TABLE events ALTER COLUMN device SET DATA TYPE event_device;
ALTER TABLE events ALTER COLUMN platform SET DATA TYPE event_platform;
-- An event's ad group and campaign follow from its ad, which never moves to
-- another: readers join the ads table for them.
ALTER TABLE events DROP COLUMN ad_group_id;
ALTER TABLE events DROP COLUMN campaign_id;
-- Dedup matches a load's keys with stored ones by a 64-bit hash of (account,
-- event id), kept with each event rather than computed from the key strings
-- of every stored event at every load. DuckDB's hash() may change between
-- versions, so event_key_hash keeps the hash of a fixed key as it was when
-- the column was filled. The loader alone fills it (src/ingest/load-events.ts,
-- currentKeyHashes): finding no fixed key here, or a different hash of it,
-- it makes every stored hash first, so the first load after this migration
-- does that once.
ALTER TABLE events ADD COLUMN key_hash UBIGINT;
CREATE TABLE event_key_hash (probe UBIGINT NOT NULL);
