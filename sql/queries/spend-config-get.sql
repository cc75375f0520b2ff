-- purpose: the spend-limit configuration revision of an account
-- params: $account
SELECT revision FROM spend_limit_configs WHERE ad_account_id = $account
