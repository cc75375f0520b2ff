-- purpose: disable an enabled endpoint (it answered 410 Gone)
-- params: $id $reason $now_ms
UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $reason, updated_at_ms = $now_ms
WHERE id = $id AND status = 'enabled'
