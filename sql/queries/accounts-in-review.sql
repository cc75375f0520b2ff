-- purpose: brand reviews still pending (the reconciler re-enqueues their jobs)
-- params: none
SELECT id, review_seq, review_requested_at_ms FROM ad_accounts WHERE review_status = 'in_review' ORDER BY seq
