-- purpose: create a product feed
-- params: $id $account $name $now_ms
INSERT INTO product_feeds (id, ad_account_id, name, created_at_ms, updated_at_ms)
VALUES ($id, $account, $name, $now_ms, $now_ms)
RETURNING *
