-- purpose: write every mutable field of an ad group
-- params: $id $account $name $description $context_hints $status $max_bid_micros $now_ms
UPDATE ad_groups SET name = $name, description = $description, context_hints = $context_hints, status = $status,
  max_bid_micros = $max_bid_micros, updated_at_ms = $now_ms
WHERE id = $id AND ad_account_id = $account
RETURNING *
