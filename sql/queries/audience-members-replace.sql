-- purpose: replace an audience's members with the distinct hashes given
-- params: $id $hashes (VARCHAR[])
INSERT INTO custom_audience_members SELECT $id, h FROM (SELECT DISTINCT unnest($hashes) AS h)
