-- purpose: mark a feed as changed
-- params: $id $now_ms
UPDATE product_feeds SET updated_at_ms = $now_ms WHERE id = $id
