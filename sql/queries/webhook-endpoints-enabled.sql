-- purpose: the enabled endpoints of an account, with their subscriptions (the outbox picks the subscribed ones)
-- params: $account
SELECT id, event_types FROM webhook_endpoints WHERE ad_account_id = $account AND status = 'enabled' ORDER BY seq
