-- purpose: create an ad group
-- params: $id $account $campaign_id $name $description $context_hints $status $billing_event_type $max_bid_micros $now_ms
INSERT INTO ad_groups (id, ad_account_id, campaign_id, name, description, context_hints, status, billing_event_type, max_bid_micros, created_at_ms, updated_at_ms)
VALUES ($id, $account, $campaign_id, $name, $description, $context_hints, $status, $billing_event_type, $max_bid_micros, $now_ms, $now_ms)
RETURNING *
