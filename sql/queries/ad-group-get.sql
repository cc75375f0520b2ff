-- purpose: read one ad group of an account
-- params: $id $account
SELECT * FROM ad_groups WHERE id = $id AND ad_account_id = $account
