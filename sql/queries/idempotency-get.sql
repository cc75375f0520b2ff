-- purpose: the stored outcome of an idempotent create
-- params: $account $key
SELECT route, request_hash, response_status, response_body FROM idempotency_keys
WHERE ad_account_id = $account AND idem_key = $key
