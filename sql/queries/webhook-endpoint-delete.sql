-- purpose: remove a webhook endpoint
-- params: $id $account
DELETE FROM webhook_endpoints WHERE id = $id AND ad_account_id = $account
