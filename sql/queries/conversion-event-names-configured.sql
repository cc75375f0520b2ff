-- purpose: which of the given event names the account's conversion event settings name (archived ones included): a standard event type or a custom event name
-- params: $account $names
SELECT DISTINCT name FROM (
  SELECT CASE WHEN event_type = 'custom' THEN custom_event_name ELSE event_type END AS name
  FROM conversion_event_settings WHERE ad_account_id = $account
) WHERE list_contains($names, name)
