-- purpose: change an account's timezone
-- params: $id $timezone $now_ms
UPDATE ad_accounts SET timezone = $timezone, updated_at_ms = $now_ms WHERE id = $id
