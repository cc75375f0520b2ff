-- purpose: create a conversion event setting
-- params: $id $account $name $event_type $custom_event_name $window $now_ms
INSERT INTO conversion_event_settings (id, ad_account_id, name, event_type, custom_event_name, attribution_window_days, archived, created_at_ms, updated_at_ms)
VALUES ($id, $account, $name, $event_type, $custom_event_name, $window, false, $now_ms, $now_ms)
RETURNING *
