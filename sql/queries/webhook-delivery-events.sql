-- purpose: event type and test flag of listed deliveries
-- params: $events (list of event ids)
SELECT id, type, is_test FROM webhook_events WHERE list_contains($events, id)
