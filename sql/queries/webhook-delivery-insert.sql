-- purpose: one pending delivery of an event to an endpoint, due at once
-- params: $id $account $endpoint $event $now_ms
INSERT INTO webhook_deliveries (id, ad_account_id, endpoint_id, event_id, status, attempts, next_attempt_at_ms,
  first_attempt_at_ms, last_attempt_at_ms, deadline_at_ms, last_status_code, last_error, completed_at_ms, created_at_ms, updated_at_ms)
VALUES ($id, $account, $endpoint, $event, 'pending', 0, $now_ms, NULL, NULL, NULL, NULL, NULL, NULL, $now_ms, $now_ms)
RETURNING *
