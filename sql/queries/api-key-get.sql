-- purpose: find an API key by its public id, with the status of its account
-- params: $id
SELECT k.id, k.ad_account_id, k.secret_hash, k.billing
FROM api_keys k JOIN ad_accounts a ON a.id = k.ad_account_id
WHERE k.id = $id
