-- purpose: read one ad of an account
-- params: $id $account
SELECT * FROM ads WHERE id = $id AND ad_account_id = $account
