-- purpose: end every pending delivery of an endpoint that was disabled (by request, or by a 410 answer)
-- params: $endpoint $error $now_ms
UPDATE webhook_deliveries SET status = 'failed', next_attempt_at_ms = NULL, last_error = $error, completed_at_ms = $now_ms, updated_at_ms = $now_ms
WHERE endpoint_id = $endpoint AND status = 'pending'
