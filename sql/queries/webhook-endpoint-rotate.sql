-- purpose: a new signing secret; the old one keeps signing until $previous_expires_at_ms, or stops now (NULL)
-- params: $id $account $secret $previous_expires_at_ms $now_ms
UPDATE webhook_endpoints SET
  previous_secret = CASE WHEN $previous_expires_at_ms IS NULL THEN NULL ELSE secret END,
  previous_secret_expires_at_ms = $previous_expires_at_ms,
  secret = $secret,
  updated_at_ms = $now_ms
WHERE id = $id AND ad_account_id = $account
RETURNING *
