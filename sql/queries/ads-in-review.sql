-- purpose: ad reviews still pending (the reconciler re-queues their jobs)
-- params: none
SELECT id, review_seq, review_requested_at_ms FROM ads WHERE review_status = 'in_review' ORDER BY seq
