-- purpose: read one product feed of an account with its item count
-- params: $id $account
SELECT f.*, (SELECT count(*) FROM product_feed_items i WHERE i.feed_id = f.id) AS item_count
FROM product_feeds f WHERE f.id = $id AND f.ad_account_id = $account
