-- purpose: count one more change of an account's spend-limit configuration
-- params: $account
INSERT INTO spend_limit_configs (ad_account_id, revision) VALUES ($account, 1)
ON CONFLICT (ad_account_id) DO UPDATE SET revision = spend_limit_configs.revision + 1
