-- purpose: recorded spend of an account per local day, in a range of days (both ends included)
-- params: $account $from $to
SELECT day, spent_micros, updated_at_ms FROM account_daily_spend WHERE ad_account_id = $account AND day >= $from AND day <= $to ORDER BY day
