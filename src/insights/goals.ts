/**
 * Which attributed events are goal conversions (shared/EVENTS.md, Goal
 * conversions): an event is a goal conversion of its attributed campaign when
 * it matches one of the campaign's `conversion_event_setting_ids`, a setting
 * naming a standard event type or a custom event name. GET insights and
 * conversion insights both read goals through these fragments, so their
 * `conversions` agree by construction (spec: Insights (GET), "To match
 * conversion insights totals").
 *
 * `accountParam` is a bound-parameter placeholder (e.g. `$p3`) holding the
 * account id; the fragments are subqueries with no other input.
 */

/** One row per (campaign, setting, event name): the goals of each campaign of the account, by setting. */
export function goalSettingsSql(accountParam: string): string {
  // The ids are unnested in a plain projection, not a lateral join (which DuckDB plans as a costlier delim join).
  return `SELECT DISTINCT cs.campaign_id, s.id AS setting_id, CASE WHEN s.event_type = 'custom' THEN s.custom_event_name ELSE s.event_type END AS event_name
      FROM (SELECT c.id AS campaign_id, unnest(CAST(json(c.conversion_event_setting_ids) AS VARCHAR[])) AS setting_id FROM campaigns c WHERE c.ad_account_id = ${accountParam}) cs
      JOIN conversion_event_settings s ON s.id = cs.setting_id`;
}

/** One row per (campaign, event name) that is a goal: join an attribution on both to tell goal conversions. */
export function goalEventsSql(accountParam: string): string {
  return `SELECT DISTINCT campaign_id, event_name FROM (${goalSettingsSql(accountParam)}) gs`;
}
