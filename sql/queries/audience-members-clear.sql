-- purpose: drop an audience's members before they are written again
-- params: $id
DELETE FROM custom_audience_members WHERE audience_id = $id
