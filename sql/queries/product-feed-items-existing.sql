-- purpose: which of the given item ids a feed already has
-- params: $feed_id $item_ids (VARCHAR[])
SELECT item_id FROM product_feed_items WHERE feed_id = $feed_id AND list_contains($item_ids, item_id)
