-- purpose: pending deliveries after a position in commit order, with the attempt each waits for and when it is due (relay and reconciler)
-- params: $after_seq
SELECT id, seq, attempts + 1 AS attempt, next_attempt_at_ms FROM webhook_deliveries
WHERE status = 'pending' AND seq > $after_seq ORDER BY seq
