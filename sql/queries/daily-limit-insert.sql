-- purpose: create the daily limit
-- params: $id $account $amount_micros $start_date $end_date $now_ms
INSERT INTO daily_spend_limits VALUES ($id, $account, $amount_micros, $start_date, $end_date, false, $now_ms, $now_ms)
