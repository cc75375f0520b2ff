-- purpose: write an ad's mutable fields; a changed creative starts a new review
-- params: $id $account $name $status $title $body $target_url $file_id $new_review $now_ms
UPDATE ads SET
  name = $name, status = $status, title = $title, body = $body, target_url = $target_url, file_id = $file_id,
  review_status = CASE WHEN $new_review THEN 'in_review' ELSE review_status END,
  review_reason = CASE WHEN $new_review THEN NULL ELSE review_reason END,
  review_seq = CASE WHEN $new_review THEN review_seq + 1 ELSE review_seq END,
  review_requested_at_ms = CASE WHEN $new_review THEN $now_ms ELSE review_requested_at_ms END,
  updated_at_ms = $now_ms
WHERE id = $id AND ad_account_id = $account
RETURNING *
