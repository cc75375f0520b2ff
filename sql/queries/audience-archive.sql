-- purpose: archive a custom audience (archiving twice changes nothing more)
-- params: $id $account $now_ms
UPDATE custom_audiences
SET status = 'archived',
    membership_version = CASE WHEN status = 'archived' THEN membership_version ELSE membership_version + 1 END,
    updated_at_ms = CASE WHEN status = 'archived' THEN updated_at_ms ELSE $now_ms END
WHERE id = $id AND ad_account_id = $account
RETURNING *
