-- purpose: store a new API key (hash only)
-- params: $id $ad_account_id $secret_hash $billing $now_ms
INSERT INTO api_keys (id, ad_account_id, secret_hash, billing, created_at_ms)
VALUES ($id, $ad_account_id, $secret_hash, $billing, $now_ms)
