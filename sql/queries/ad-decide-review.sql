-- purpose: settle an ad's pending review, only if it is still the review the job was queued for
-- params: $id $review_seq $review_status $review_reason $now_ms
UPDATE ads SET review_status = $review_status, review_reason = $review_reason, updated_at_ms = $now_ms
WHERE id = $id AND review_seq = $review_seq AND review_status = 'in_review'
RETURNING *
