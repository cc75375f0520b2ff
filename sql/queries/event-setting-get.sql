-- purpose: read one conversion event setting of an account
-- params: $id $account
SELECT * FROM conversion_event_settings WHERE id = $id AND ad_account_id = $account
