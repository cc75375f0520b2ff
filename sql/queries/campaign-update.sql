-- purpose: write every mutable field of a campaign
-- params: $id $account $name $description $status $start_time $end_time $budget $targeting $now_ms
UPDATE campaigns SET
  name = $name, description = $description, status = $status, start_time = $start_time, end_time = $end_time,
  lifetime_spend_limit_micros = $budget, targeting = $targeting, updated_at_ms = $now_ms
WHERE id = $id AND ad_account_id = $account
RETURNING *
