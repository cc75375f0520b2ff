-- purpose: read one uploaded file of an account
-- params: $id $ad_account_id
SELECT * FROM files WHERE id = $id AND ad_account_id = $ad_account_id
