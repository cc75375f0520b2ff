-- purpose: insert or replace one feed item (every field is replaced)
-- params: $feed_id $item_id $account $title $description $body $target_url $image_url $brand $seller_name $price $availability $now_ms
INSERT INTO product_feed_items (feed_id, item_id, ad_account_id, title, description, body, target_url, image_url, brand, seller_name, price, availability, created_at_ms, updated_at_ms)
VALUES ($feed_id, $item_id, $account, $title, $description, $body, $target_url, $image_url, $brand, $seller_name, $price, $availability, $now_ms, $now_ms)
ON CONFLICT (feed_id, item_id) DO UPDATE SET
  title = excluded.title, description = excluded.description, body = excluded.body,
  target_url = excluded.target_url, image_url = excluded.image_url, brand = excluded.brand,
  seller_name = excluded.seller_name, price = excluded.price, availability = excluded.availability,
  updated_at_ms = excluded.updated_at_ms
