-- purpose: distinct members of the included audiences that no excluded audience has
-- params: $included (VARCHAR[]) $excluded (VARCHAR[])
SELECT count(DISTINCT member_hash) AS n FROM custom_audience_members
WHERE list_contains($included, audience_id)
  AND member_hash NOT IN (SELECT member_hash FROM custom_audience_members WHERE list_contains($excluded, audience_id))
