-- purpose: the live spend limit windows of an account, by start date
-- params: $account
SELECT window_id, start_date, end_date, amount_micros, name, io_id FROM spend_limit_windows
WHERE ad_account_id = $account AND NOT deleted ORDER BY start_date, window_id
