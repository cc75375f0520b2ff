-- purpose: delete a spend limit window (kept as history)
-- params: $window_id $now_ms
UPDATE spend_limit_windows SET deleted = true, updated_at_ms = $now_ms WHERE window_id = $window_id
