-- purpose: the accounts an ingest run without an account of its own stored events for (ingest_run.completed goes to each)
-- params: $run
SELECT DISTINCT ad_account_id FROM events WHERE run_id = $run ORDER BY ad_account_id
