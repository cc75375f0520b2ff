-- purpose: remove the deliveries of a webhook endpoint being deleted (jobs still queued for them find nothing and stop)
-- params: $endpoint
DELETE FROM webhook_deliveries WHERE endpoint_id = $endpoint
