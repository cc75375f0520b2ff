-- purpose: record one uploaded file; its bytes are already in the blob store at $storage_path
-- params: $id $ad_account_id $purpose (NULL: creative image) $filename $mime_type $size_bytes $width $height $sha256 $storage_path $source_url $created_at_ms
INSERT INTO files (id, ad_account_id, purpose, filename, mime_type, size_bytes, width, height, sha256, storage_path, source_url, created_at_ms)
VALUES ($id, $ad_account_id, $purpose, $filename, $mime_type, $size_bytes, $width, $height, $sha256, $storage_path, $source_url, $created_at_ms)
RETURNING *
