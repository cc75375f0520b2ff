-- purpose: create an ad, in review
-- params: $id $account $ad_group_id $campaign_id $name $status $title $body $target_url $file_id $now_ms
INSERT INTO ads (id, ad_account_id, ad_group_id, campaign_id, name, status, review_status, review_reason, review_seq, review_requested_at_ms,
  creative_type, title, body, target_url, file_id, created_at_ms, updated_at_ms)
VALUES ($id, $account, $ad_group_id, $campaign_id, $name, $status, 'in_review', NULL, 1, $now_ms,
  'chat_card', $title, $body, $target_url, $file_id, $now_ms, $now_ms)
RETURNING *
