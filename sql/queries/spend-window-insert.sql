-- purpose: create a spend limit window
-- params: $window_id $account $start_date $end_date $amount_micros $name $io_id $now_ms
INSERT INTO spend_limit_windows VALUES ($window_id, $account, $start_date, $end_date, $amount_micros, $name, $io_id, false, $now_ms, $now_ms)
RETURNING window_id, start_date, end_date, amount_micros, name, io_id
