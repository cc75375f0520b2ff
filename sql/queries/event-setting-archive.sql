-- purpose: archive a conversion event setting (archiving twice changes nothing more)
-- params: $id $account $now_ms
UPDATE conversion_event_settings
SET archived = true, updated_at_ms = CASE WHEN archived THEN updated_at_ms ELSE $now_ms END
WHERE id = $id AND ad_account_id = $account
RETURNING *
