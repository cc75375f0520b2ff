-- purpose: record an event (the outbox row; deliveries follow in the same transaction)
-- params: $id $account $type $resource_id $payload $is_test $now_ms
INSERT INTO webhook_events VALUES ($id, $account, $type, $resource_id, $payload, $is_test, $now_ms)
