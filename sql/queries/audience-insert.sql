-- purpose: create a custom audience, pending processing
-- params: $id $account $name $description $file_id $filename $mimetype $file_size $identifier_type $now_ms
INSERT INTO custom_audiences (id, ad_account_id, name, description, file_id, filename, mimetype, file_size, identifier_type, status, failure_reason, size, membership_version, created_at_ms, updated_at_ms)
VALUES ($id, $account, $name, $description, $file_id, $filename, $mimetype, $file_size, $identifier_type, 'processing', NULL, NULL, 0, $now_ms, $now_ms)
RETURNING *
