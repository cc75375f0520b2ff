-- purpose: everything one delivery attempt needs: the delivery, its body, and its endpoint (NULLs once deleted)
-- params: $id
SELECT d.id, d.status, d.attempts, d.next_attempt_at_ms, d.first_attempt_at_ms, d.deadline_at_ms, d.endpoint_id,
  e.id AS event_id, e.payload,
  w.url, w.status AS endpoint_status, w.secret, w.previous_secret, w.previous_secret_expires_at_ms
FROM webhook_deliveries d
JOIN webhook_events e ON e.id = d.event_id
LEFT JOIN webhook_endpoints w ON w.id = d.endpoint_id
WHERE d.id = $id
