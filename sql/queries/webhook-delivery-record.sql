-- purpose: record attempt $attempt of a delivery, only if it is the next one of a pending delivery (a repeated job changes nothing)
-- params: $id $attempt $status $next_at_ms $attempted_at_ms $deadline_at_ms $status_code $error $completed_at_ms $now_ms
UPDATE webhook_deliveries SET
  status = $status,
  attempts = $attempt,
  next_attempt_at_ms = $next_at_ms,
  first_attempt_at_ms = coalesce(first_attempt_at_ms, $attempted_at_ms),
  last_attempt_at_ms = $attempted_at_ms,
  deadline_at_ms = $deadline_at_ms,
  last_status_code = $status_code,
  last_error = $error,
  completed_at_ms = $completed_at_ms,
  updated_at_ms = $now_ms
WHERE id = $id AND status = 'pending' AND attempts = $attempt - 1
RETURNING id
