-- GET /v1/ingest_runs lists an account's runs, keyed on seq like every other
-- list (list-page.ts). Runs made before this migration keep their order of
-- creation, numbered below the first new one (a sequence cannot start from a
-- computed value).
CREATE SEQUENCE ingest_runs_seq START 1;
ALTER TABLE ingest_runs ADD COLUMN seq BIGINT;
UPDATE ingest_runs SET seq = r.n - (SELECT count(*) FROM ingest_runs) - 1
FROM (SELECT id, row_number() OVER (ORDER BY created_at_ms, id) AS n FROM ingest_runs) r
WHERE ingest_runs.id = r.id;
