-- purpose: which of the given event names the account has received as stored conversion events
-- params: $account $names
SELECT DISTINCT event_name AS name FROM events WHERE ad_account_id = $account AND type = 'conversion'::event_type AND list_contains($names, event_name)
