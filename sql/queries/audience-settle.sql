-- purpose: record the outcome of processing (only while still processing, so an archive wins)
-- params: $id $status $failure_reason $size $now_ms
UPDATE custom_audiences
SET status = $status, failure_reason = $failure_reason, size = $size,
    membership_version = membership_version + 1, updated_at_ms = $now_ms
WHERE id = $id AND status = 'processing'
RETURNING *
