-- purpose: create a webhook endpoint, enabled
-- params: $id $account $name $url $event_types (JSON array) $secret $now_ms
INSERT INTO webhook_endpoints (id, ad_account_id, name, url, event_types, status, disabled_reason, secret,
  previous_secret, previous_secret_expires_at_ms, created_at_ms, updated_at_ms)
VALUES ($id, $account, $name, $url, $event_types, 'enabled', NULL, $secret, NULL, NULL, $now_ms, $now_ms)
RETURNING *
