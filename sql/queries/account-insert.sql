-- purpose: create an ad account
-- params: $id $name $url $timezone $currency_code $status $review_status $brand_enabled
--         $conversion_bidding_enabled $product_segments_enabled $zero_impression_products_enabled
--         $postpaid_invoice $now_ms
INSERT INTO ad_accounts (
  id, name, url, timezone, currency_code, status, review_status, review_reason, review_seq,
  review_requested_at_ms, favicon_file_id, brand_enabled, conversion_bidding_enabled,
  product_segments_enabled, zero_impression_products_enabled, postpaid_invoice,
  created_at_ms, updated_at_ms
) VALUES (
  $id, $name, $url, $timezone, $currency_code, $status, $review_status, NULL, 0,
  NULL, NULL, $brand_enabled, $conversion_bidding_enabled,
  $product_segments_enabled, $zero_impression_products_enabled, $postpaid_invoice,
  $now_ms, $now_ms
)
