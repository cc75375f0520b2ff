-- purpose: the audiences of an account among the given ids (campaign targeting checks)
-- params: $account $ids (VARCHAR[])
SELECT id, status, size, membership_version FROM custom_audiences WHERE ad_account_id = $account AND list_contains($ids, id)
