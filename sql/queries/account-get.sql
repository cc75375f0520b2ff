-- purpose: read one ad account by id
-- params: $id
SELECT * FROM ad_accounts WHERE id = $id
