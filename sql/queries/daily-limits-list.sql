-- purpose: every daily limit an account has had, newest first
-- params: $account
SELECT id, amount_micros, start_date, end_date, removed FROM daily_spend_limits WHERE ad_account_id = $account ORDER BY created_at_ms DESC, id
