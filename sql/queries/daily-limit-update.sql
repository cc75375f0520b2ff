-- purpose: change the daily limit's amount and end date
-- params: $id $amount_micros $end_date $now_ms
UPDATE daily_spend_limits SET amount_micros = $amount_micros, end_date = $end_date, updated_at_ms = $now_ms WHERE id = $id
