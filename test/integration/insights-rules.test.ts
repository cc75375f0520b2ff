import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** Every invalid GET insights request the spec names is a 400 whose `param` names the parameter (spec: Insights (GET)). */
const NOW = Date.UTC(2026, 10, 22, 15);
let t: TestApp;
let key: string;
let plainKey: string;
let campaign: string;
let otherCampaign: string;

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  ({ key } = await makeAccount(t, { timezone: 'America/New_York' }));
  plainKey = (await makeAccount(t, { enable: [] })).key;
  const post = async (k: string, url: string, payload: object) => (await t.app.inject({ method: 'POST', url, headers: bearer(k), payload })).json().id as string;
  campaign = await post(key, '/v1/campaigns', { name: 'Rules', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
  otherCampaign = await post(plainKey, '/v1/campaigns', { name: 'Other', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
  await insertFile(t.store, 'unused', null);
});
afterAll(() => t.close());

const range = (r: object) => ['time_ranges', JSON.stringify(r)] as const;
const DAYS = range({ type: 'date_range', since: '2026-11-01', until: '2026-11-07' });

async function get(path: string, params: (readonly [string, string])[], k = key) {
  const qs = new URLSearchParams(params.map(([a, b]): [string, string] => [a, b]));
  const res = await t.app.inject({ url: `/v1${path}?${qs}`, headers: bearer(k) });
  return { status: res.statusCode, body: res.json() as { error?: { type: string; code: string; param: string | null; message: string } } };
}

const cases: [string, string, (readonly [string, string])[], string, string?][] = [
  // [name, path, params, param, code]
  ['level above the scope', 'campaign', [['aggregation_level', 'ad_account'], DAYS], 'aggregation_level'],
  ['unknown level', 'account', [['aggregation_level', 'country'], DAYS], 'aggregation_level'],
  ['unknown granularity', 'account', [['time_granularity', 'weekly'], DAYS], 'time_granularity'],
  ['time range not JSON', 'account', [['time_ranges', '{oops']], 'time_ranges[0]'],
  ['two time ranges', 'account', [DAYS, DAYS], 'time_ranges', 'array_above_max_length'],
  ['time range without bounds', 'account', [range({ type: 'date_range' })], 'time_ranges'],
  ['unknown time range type', 'account', [range({ type: 'week_range', since: '2026-11-01' })], 'time_ranges[0].type'],
  ['future date', 'account', [range({ type: 'date_range', since: '2026-11-20', until: '2026-11-23' })], 'time_ranges'],
  ['future unix end', 'account', [range({ type: 'unix_range', start: NOW / 1000 - 86_400, end: NOW / 1000 + 7200 })], 'time_ranges'],
  ['older than 5 years', 'account', [range({ type: 'date_range', since: '2021-11-01', until: '2021-11-07' })], 'time_ranges'],
  ['end before start', 'account', [range({ type: 'unix_range', start: NOW / 1000 - 3600, end: NOW / 1000 - 7200 })], 'time_ranges'],
  ['bad timezone', 'account', [range({ type: 'date_range', since: '2026-11-01', timezone: 'Mars/Olympus' })], 'time_ranges'],
  ['malformed hour', 'account', [range({ type: 'hour_range', since: '2026-11-01 10' })], 'time_ranges[0].since'],
  ['unknown field', 'account', [['fields', 'reach'], DAYS], 'fields[0]'],
  ['field below the level', 'account', [['fields', 'campaign.name'], DAYS], 'fields[0]'],
  ['metric of another level', 'campaign', [['fields', 'ad_group.clicks'], DAYS], 'fields[0]'],
  ['segment metric without the segment', 'account', [['fields', 'country.impressions'], DAYS], 'fields[0]'],
  ['feed-item pair as a field', 'account', [['fields', 'product.feed_item_id'], DAYS], 'fields[0]'],
  ['readable_time without buckets', 'account', [['fields', 'readable_time'], ['time_granularity', 'none'], DAYS], 'fields[0]'],
  ['filter not JSON', 'account', [['filters', 'x'], DAYS], 'filters[0]'],
  ['filter operator', 'account', [['filters', JSON.stringify({ field: 'campaign.id', operator: 'EQ', value: ['a'] })], ['aggregation_level', 'campaign'], DAYS], 'filters[0].operator'],
  ['IN with a number', 'account', [['filters', JSON.stringify({ field: 'campaign.id', operator: 'IN', value: 3 })], ['aggregation_level', 'campaign'], DAYS], 'filters[0].value', 'invalid_type'],
  ['threshold with a list', 'account', [['filters', JSON.stringify({ field: 'clicks', operator: 'GREATER_THAN', value: [3] })], DAYS], 'filters[0].value', 'invalid_type'],
  ['threshold on text', 'account', [['filters', JSON.stringify({ field: 'ad_account.name', operator: 'LESS_THAN', value: 3 })], DAYS], 'filters[0].operator'],
  ['IN on a metric', 'account', [['filters', JSON.stringify({ field: 'clicks', operator: 'IN', value: ['3'] })], DAYS], 'filters[0].operator'],
  ['feed-item pair without product segment', 'account', [['filters', JSON.stringify({ field: 'product.feed_item_id', operator: 'IN', value: ['{}'] })], DAYS], 'filters[0].field'],
  ['feed-item pair not JSON', 'account', [['filters', JSON.stringify({ field: 'product.feed_item_id', operator: 'IN', value: ['x'] })], ['segments', 'product'], ['time_granularity', 'daily'], DAYS], 'filters[0].value[0]'],
  ['sort on a lower id', 'campaign', [['sort', JSON.stringify({ field: 'ad.id', direction: 'asc' })], DAYS], 'sort[0].field'],
  ['sort direction', 'account', [['sort', JSON.stringify({ field: 'clicks', direction: 'up' })], DAYS], 'sort[0].direction'],
  ['sort on readable_time', 'account', [['sort', JSON.stringify({ field: 'metadata.readable_time', direction: 'asc' })], DAYS], 'sort[0].field'],
  ['two segments', 'account', [['segments', 'country'], ['segments', 'device'], DAYS], 'segments', 'array_above_max_length'],
  ['hourly with a segment', 'account', [['segments', 'country'], ['time_granularity', 'hourly'], DAYS], 'time_granularity'],
  ['platform with conversions', 'account', [['segments', 'platform'], ['fields', 'conversions'], DAYS], 'fields[0]'],
  ['group order without segment', 'account', [['override_segment_group_order', 'ad_account'], DAYS], 'override_segment_group_order'],
  ['group order entries', 'account', [['segments', 'country'], ['override_segment_group_order', 'country'], ['override_segment_group_order', 'campaign'], DAYS], 'override_segment_group_order'],
  ['zero items with a segment', 'account', [['segments', 'country'], ['includes', 'zero_impression_items'], DAYS], 'includes'],
  ['zero products without product first', 'account', [['segments', 'product'], ['includes', 'zero_impression_products'], DAYS], 'includes'],
  ['zero products without product segment', 'account', [['includes', 'zero_impression_products'], DAYS], 'includes'],
  ['zero products with a metadata filter', 'account',
    [['segments', 'product'], ['override_segment_group_order', 'product'], ['override_segment_group_order', 'ad_account'], ['includes', 'zero_impression_products'],
      ['filters', JSON.stringify({ field: 'ad_account.name', operator: 'IN', value: ['x'] })], DAYS], 'filters[0].field'],
  ['limit 0', 'account', [['limit', '0'], DAYS], 'limit', 'integer_below_min_value'],
  ['limit 2001', 'account', [['limit', '2001'], DAYS], 'limit', 'integer_above_max_value'],
  ['both cursors', 'account', [['after', 'a'], ['before', 'b'], DAYS], 'before'],
  ['garbage cursor', 'account', [['after', 'start=1:end=2:entity_id=x:cursor=nope'], DAYS], 'after'],
  ['conversions on part days', 'account', [['fields', 'conversions'], range({ type: 'hour_range', since: '2026-11-01T05', until: '2026-11-02T05' })], 'time_ranges'],
  ['conversions over 365 days', 'account', [['fields', 'conversions'], range({ type: 'date_range', since: '2025-01-01', until: '2026-01-10' })], 'time_ranges'],
  ['conversions in another zone', 'account', [['fields', 'conversions'], range({ type: 'date_range', since: '2026-11-01', until: '2026-11-02', timezone: 'Asia/Kolkata' })], 'time_ranges'],
  ['click window', 'account', [['attribution_window_days', '10'], DAYS], 'attribution_window_days'],
  ['view window', 'account', [['view_through_attribution_window_days', '2'], DAYS], 'view_through_attribution_window_days'],
  ['time basis', 'account', [['attribution_time_basis', 'click_time'], DAYS], 'attribution_time_basis'],
  ['unknown parameter', 'account', [['granularity', 'daily'], DAYS], 'granularity', 'unknown_parameter'],
];

describe('GET insights refuses invalid requests', () => {
  it.each(cases)('%s', async (_name, where, params, param, code) => {
    const path = where === 'campaign' ? `/campaigns/${campaign}/insights` : '/ad_account/insights';
    const r = await get(path, params);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param, code: code ?? 'invalid_value' });
  });

  it('the product segment needs the feature', async () => {
    const r = await get('/ad_account/insights', [['segments', 'product'], DAYS], plainKey);
    expect(r.body.error).toMatchObject({ param: 'segments', code: 'invalid_value' });
    const z = await get('/ad_account/insights', [['segments', 'product'], ['override_segment_group_order', 'product'], ['override_segment_group_order', 'ad_account'], ['includes', 'zero_impression_products'], DAYS], plainKey);
    expect(z.status).toBe(400);
  });

  it("another account's campaign is 404, an unknown ad group too", async () => {
    const r = await get(`/campaigns/${otherCampaign}/insights`, [DAYS]);
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'resource_missing' });
    expect((await get('/ad_groups/adgrp_nope/insights', [DAYS])).status).toBe(404);
  });
});
