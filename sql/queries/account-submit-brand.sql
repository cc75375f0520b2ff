-- purpose: record a brand submission and put the account in review
-- params: $id $name (NULL keeps) $favicon_file_id (NULL keeps) $now_ms
UPDATE ad_accounts SET
  name = coalesce($name, name),
  favicon_file_id = coalesce($favicon_file_id, favicon_file_id),
  review_status = 'in_review',
  review_reason = NULL,
  review_seq = review_seq + 1,
  review_requested_at_ms = $now_ms,
  updated_at_ms = $now_ms
WHERE id = $id
RETURNING *
