-- purpose: remove the daily limit (kept as history)
-- params: $id $now_ms
UPDATE daily_spend_limits SET removed = true, updated_at_ms = $now_ms WHERE id = $id
