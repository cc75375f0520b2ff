-- purpose: read a custom audience by id alone (the processing job)
-- params: $id
SELECT * FROM custom_audiences WHERE id = $id
