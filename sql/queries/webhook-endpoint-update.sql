-- purpose: write a webhook endpoint's mutable fields
-- params: $id $account $name $url $event_types (JSON array) $status $disabled_reason $now_ms
UPDATE webhook_endpoints SET
  name = $name, url = $url, event_types = $event_types, status = $status, disabled_reason = $disabled_reason,
  updated_at_ms = $now_ms
WHERE id = $id AND ad_account_id = $account
RETURNING *
