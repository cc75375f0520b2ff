-- purpose: one webhook endpoint of an account
-- params: $id $account
SELECT * FROM webhook_endpoints WHERE id = $id AND ad_account_id = $account
