-- purpose: read one campaign of an account
-- params: $id $account
SELECT * FROM campaigns WHERE id = $id AND ad_account_id = $account
