-- purpose: remember the outcome of an idempotent create
-- params: $account $key $route $request_hash $response_status $response_body $now_ms
INSERT INTO idempotency_keys VALUES ($account, $key, $route, $request_hash, $response_status, $response_body, $now_ms)
