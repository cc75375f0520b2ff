-- purpose: one delivery of an account with its event type and test flag (the wire shape needs both)
-- params: $id $account
SELECT d.*, e.type AS event_type, e.is_test FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
WHERE d.id = $id AND d.ad_account_id = $account
