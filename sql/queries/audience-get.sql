-- purpose: read one custom audience of an account
-- params: $id $account
SELECT * FROM custom_audiences WHERE id = $id AND ad_account_id = $account
