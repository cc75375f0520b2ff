-- purpose: write a spend limit window's fields
-- params: $window_id $start_date $end_date $amount_micros $name $io_id $now_ms
UPDATE spend_limit_windows SET start_date = $start_date, end_date = $end_date, amount_micros = $amount_micros,
  name = $name, io_id = $io_id, updated_at_ms = $now_ms
WHERE window_id = $window_id
RETURNING window_id, start_date, end_date, amount_micros, name, io_id
