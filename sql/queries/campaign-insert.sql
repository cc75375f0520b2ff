-- purpose: create a campaign
-- params: $id $account $name $description $status $start_time $end_time $budget $bidding_type $setting_ids $mode $product_feed_id $targeting $now_ms
INSERT INTO campaigns (id, ad_account_id, name, description, status, start_time, end_time, lifetime_spend_limit_micros, bidding_type,
  conversion_event_setting_ids, mode, product_feed_id, targeting, created_at_ms, updated_at_ms)
VALUES ($id, $account, $name, $description, $status, $start_time, $end_time, $budget, $bidding_type,
  $setting_ids, $mode, $product_feed_id, $targeting, $now_ms, $now_ms)
RETURNING *
