import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadEventFile } from '../../src/ingest/load-events.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';

/**
 * Every invalid conversion insights body the spec names is a 400 whose
 * `param` names the field, and each of the three row limits is a 413 with the
 * error body and no data (spec: Conversion insights; Errors; Limits).
 */
const NOW = Date.UTC(2026, 10, 22, 15);
const DAY = 86_400_000;
let t: TestApp;
let key: string;
let accountId: string;
let otherKey: string;
let otherAccount: string;
let group: string;
let foreignAd: string;
const ads: string[] = [];
let otherCampaign: string;

type Json = Record<string, unknown>;
async function post(body: unknown, k = key): Promise<{ status: number; json: Json }> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/conversions/insights', headers: { ...bearer(k), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  return { status: res.statusCode, json: res.json() as Json };
}

async function load(name: string, account: string, lines: object[]): Promise<void> {
  const path = join(t.dataDir, `${name}.ndjson`);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const run = await loadEventFile(t, { runId: name, path, format: 'ndjson', source: 'test', scopeAccountId: account });
  expect(run.stored).toBe(lines.length);
}

/** 360 local days (New York), 2025-11-25 through 2026-11-19. */
const YEAR = JSON.stringify({ type: 'date_range', since: '2025-11-25', until: '2026-11-19' });
const WEEK = JSON.stringify({ type: 'date_range', since: '2026-11-01', until: '2026-11-07' });

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  ({ key, accountId } = await makeAccount(t, { timezone: 'America/New_York' }));
  ({ key: otherKey, accountId: otherAccount } = await makeAccount(t, { timezone: 'America/New_York' }));
  const make = async (k: string, url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers: bearer(k), payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id as string;
  };
  const order = await make(key, '/v1/conversions/event_settings', { name: 'Orders', event_type: 'order_created' });
  const archived = await make(key, '/v1/conversions/event_settings', { name: 'Old', event_type: 'custom', custom_event_name: 'Old Event' });
  await make(key, '/v1/conversions/event_settings/' + archived + '/archive', {});
  const campaign = await make(key, '/v1/campaigns', {
    name: 'Rules',
    status: 'active',
    bidding_type: 'conversions',
    conversion_event_setting_ids: [order],
    budget: { lifetime_spend_limit_micros: 1_000_000 },
  });
  group = await make(key, '/v1/ad_groups', { campaign_id: campaign, name: 'Group', bidding_config: { max_bid_micros: 10 } });
  const file = await insertFile(t.store, accountId, null);
  for (let i = 0; i < 8; i++) {
    ads.push(await make(key, '/v1/ads', { ad_group_id: group, name: `Ad ${i}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } }));
  }
  const otherOrder = await make(otherKey, '/v1/conversions/event_settings', { name: 'Orders', event_type: 'order_created' });
  otherCampaign = await make(otherKey, '/v1/campaigns', {
    name: 'Other',
    status: 'active',
    bidding_type: 'conversions',
    conversion_event_setting_ids: [otherOrder],
    budget: { lifetime_spend_limit_micros: 1_000_000 },
  });
  const otherGroup = await make(otherKey, '/v1/ad_groups', { campaign_id: otherCampaign, name: 'Group', bidding_config: { max_bid_micros: 10 } });
  const otherFile = await insertFile(t.store, otherAccount, null);
  foreignAd = await make(otherKey, '/v1/ads', { ad_group_id: otherGroup, name: 'Theirs', creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: otherFile } });

  // 2,100 users, each a click and a conversion an hour later with its own event name (ev_0 ...), on
  // distinct (day, ad, country) keys: day i % 350, ad (i / 350) % 3, country (i / 1050).
  const lines: object[] = [];
  const first = Date.UTC(2025, 10, 26, 12);
  for (let i = 0; i < 2100; i++) {
    const ts = first + (i % 350) * DAY;
    const ad = ads[Math.floor(i / 350) % 3];
    lines.push({ event_id: `k${i}`, type: 'click', timestamp: ts, user_id: `c${i}`, ad_id: ad, country: ['US', 'DE'][Math.floor(i / 1050)] });
    lines.push({ event_id: `v${i}`, type: 'conversion', timestamp: ts + 3_600_000, user_id: `c${i}`, ad_account_id: accountId, event_name: `ev_${i}` });
  }
  await load('many', accountId, lines);
  // The other account received `their_event`: a name that is not ours.
  await load('theirs', otherAccount, [{ event_id: 'x1', type: 'conversion', timestamp: NOW - DAY, user_id: 'z', ad_account_id: otherAccount, event_name: 'their_event' }]);
});
afterAll(() => t.close());

/** A fresh account with one campaign (a conversions campaign has an order_created goal), ad group and ad. */
async function accountWithOneAd(bidding: 'conversions' | 'impressions') {
  const acct = await makeAccount(t, { timezone: 'America/New_York' });
  const make = async (url: string, payload: object) => (await t.app.inject({ method: 'POST', url, headers: bearer(acct.key), payload })).json().id as string;
  const goal = bidding === 'conversions' ? { conversion_event_setting_ids: [await make('/v1/conversions/event_settings', { name: 'Orders', event_type: 'order_created' })] } : {};
  const campaign = await make('/v1/campaigns', { name: 'One', status: 'active', bidding_type: bidding, ...goal, budget: { lifetime_spend_limit_micros: 1_000_000 } });
  const grp = await make('/v1/ad_groups', { campaign_id: campaign, name: 'Group', bidding_config: { max_bid_micros: 10 } });
  const file = await insertFile(t.store, acct.accountId, null);
  const ad = await make('/v1/ads', { ad_group_id: grp, name: 'Ad', creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } });
  return { acct, campaign, ad };
}

const valid = (): Json => ({ aggregation_level: 'ad', time_ranges: [WEEK], entity_ids: [ads[0]] });

describe('400: every listed validation failure names its field', () => {
  const cases: [string, () => unknown, string | null, string][] = [
    // [name, body, param, code]
    ['body not an object', () => [valid()], null, 'invalid_type'],
    ['unknown field', () => ({ ...valid(), segments: ['country'] }), 'segments', 'unknown_parameter'],
    ['missing aggregation_level', () => ({ ...valid(), aggregation_level: undefined }), 'aggregation_level', 'missing_required_parameter'],
    ['account level', () => ({ ...valid(), aggregation_level: 'ad_account' }), 'aggregation_level', 'invalid_value'],
    ['missing time_ranges', () => ({ ...valid(), time_ranges: undefined }), 'time_ranges', 'missing_required_parameter'],
    ['time_ranges not an array', () => ({ ...valid(), time_ranges: WEEK }), 'time_ranges', 'invalid_type'],
    ['no time range', () => ({ ...valid(), time_ranges: [] }), 'time_ranges', 'array_below_min_length'],
    ['two time ranges', () => ({ ...valid(), time_ranges: [WEEK, WEEK] }), 'time_ranges', 'array_above_max_length'],
    ['time range not JSON', () => ({ ...valid(), time_ranges: ['{oops'] }), 'time_ranges[0]', 'invalid_value'],
    ['time range object instead of its JSON text', () => ({ ...valid(), time_ranges: [JSON.parse(WEEK)] }), 'time_ranges[0]', 'invalid_type'],
    ['hour_range', () => ({ ...valid(), time_ranges: [JSON.stringify({ type: 'hour_range', since: '2026-11-01T00', until: '2026-11-01T23' })] }), 'time_ranges[0].type', 'invalid_value'],
    ['unix bound not numeric', () => ({ ...valid(), time_ranges: [JSON.stringify({ type: 'unix_range', start: 'soon', end: 1_793_000_000 })] }), 'time_ranges[0].start', 'invalid_type'],
    ['unix bounds not local midnights', () => ({ ...valid(), time_ranges: [JSON.stringify({ type: 'unix_range', start: 1_761_955_200, end: 1_762_560_000 })] }), 'time_ranges', 'invalid_value'],
    ['date_range in another timezone (not account days)', () => ({ ...valid(), time_ranges: [JSON.stringify({ type: 'date_range', since: '2026-11-01', until: '2026-11-07', timezone: 'Asia/Tokyo' })] }), 'time_ranges', 'invalid_value'],
    ['more than 365 days', () => ({ ...valid(), time_ranges: [JSON.stringify({ type: 'date_range', since: '2025-11-01', until: '2026-11-07' })] }), 'time_ranges', 'invalid_value'],
    ['future dates', () => ({ ...valid(), time_ranges: [JSON.stringify({ type: 'date_range', since: '2026-11-20', until: '2026-11-25' })] }), 'time_ranges', 'invalid_value'],
    ['hourly granularity', () => ({ ...valid(), time_granularity: 'hourly' }), 'time_granularity', 'invalid_value'],
    ['entity_ids missing while grouping by entity', () => ({ ...valid(), entity_ids: undefined }), 'entity_ids', 'missing_required_parameter'],
    ['entity_ids empty', () => ({ ...valid(), entity_ids: [] }), 'entity_ids', 'array_below_min_length'],
    ['entity_ids not an array', () => ({ ...valid(), entity_ids: ads[0] }), 'entity_ids', 'invalid_type'],
    ['unknown entity id', () => ({ ...valid(), entity_ids: [ads[0], 'ad_nope'] }), 'entity_ids[1]', 'invalid_value'],
    ['entity of another level', () => ({ ...valid(), entity_ids: [group] }), 'entity_ids[0]', 'invalid_value'],
    ['entity of another account', () => ({ ...valid(), entity_ids: [foreignAd] }), 'entity_ids[0]', 'invalid_value'],
    ['campaign of another account, not grouped', () => ({ ...valid(), aggregation_level: 'campaign', group_by_entity: false, entity_ids: [otherCampaign] }), 'entity_ids[0]', 'invalid_value'],
    ['group_by_entity not a boolean', () => ({ ...valid(), group_by_entity: 'yes' }), 'group_by_entity', 'invalid_type'],
    ['platform breakdown', () => ({ ...valid(), breakdown: 'platform' }), 'breakdown', 'invalid_value'],
    ['unknown time basis', () => ({ ...valid(), attribution_time_basis: 'click_time' }), 'attribution_time_basis', 'invalid_value'],
    ['unsupported click window', () => ({ ...valid(), attribution_window_days: 1 }), 'attribution_window_days', 'invalid_value'],
    ['click window as text', () => ({ ...valid(), attribution_window_days: '7' }), 'attribution_window_days', 'invalid_value'],
    ['unsupported view window', () => ({ ...valid(), view_through_attribution_window_days: 7 }), 'view_through_attribution_window_days', 'invalid_value'],
    ['unknown include', () => ({ ...valid(), include: ['events'] }), 'include[0]', 'invalid_value'],
    ['include null', () => ({ ...valid(), include: null }), 'include', 'invalid_type'],
    ['event_names without the expansion', () => ({ ...valid(), event_names: ['order_created'] }), 'event_names', 'invalid_value'],
    ['event_names with an empty include', () => ({ ...valid(), include: [], event_names: ['order_created'] }), 'event_names', 'invalid_value'],
    ['event_names empty', () => ({ ...valid(), include: ['attributed_events'], event_names: [] }), 'event_names', 'array_below_min_length'],
    ['event_names null', () => ({ ...valid(), include: ['attributed_events'], event_names: null }), 'event_names', 'invalid_type'],
    ['501 event names', () => ({ ...valid(), include: ['attributed_events'], event_names: Array.from({ length: 501 }, (_, i) => `ev_${i}`) }), 'event_names', 'array_above_max_length'],
    ['event name of 257 characters', () => ({ ...valid(), include: ['attributed_events'], event_names: ['x'.repeat(257)] }), 'event_names[0]', 'string_above_max_length'],
    ['empty event name', () => ({ ...valid(), include: ['attributed_events'], event_names: [''] }), 'event_names[0]', 'string_below_min_length'],
    ['blank event name', () => ({ ...valid(), include: ['attributed_events'], event_names: ['order_created', ' \t '] }), 'event_names[1]', 'invalid_value'],
    ['unknown event name', () => ({ ...valid(), include: ['attributed_events'], event_names: ['order_created', 'purchase'] }), 'event_names[1]', 'invalid_value'],
    ['exact match: case differs', () => ({ ...valid(), include: ['attributed_events'], event_names: ['Order_Created'] }), 'event_names[0]', 'invalid_value'],
    ['exact match: spaces around', () => ({ ...valid(), include: ['attributed_events'], event_names: [' order_created'] }), 'event_names[0]', 'invalid_value'],
    ['a name only another account received', () => ({ ...valid(), include: ['attributed_events'], event_names: ['their_event'] }), 'event_names[0]', 'invalid_value'],
    ['include_zero_rows as text', () => ({ ...valid(), include_zero_rows: 'false' }), 'include_zero_rows', 'invalid_type'],
  ];
  for (const [name, body, param, code] of cases) {
    it(name, async () => {
      const r = await post(body());
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(r.json['error']).toMatchObject({ type: 'invalid_request_error', code, param });
      expect(typeof (r.json['error'] as Json)['message']).toBe('string');
    });
  }

  it('accepts names from settings (archived too) and from received events, exactly, duplicates removed', async () => {
    const r = await post({ ...valid(), aggregation_level: 'ad', entity_ids: [ads[0], ads[0]], time_granularity: 'none', time_ranges: [YEAR], include: ['attributed_events'], event_names: ['Old Event', 'order_created', 'ev_5', 'ev_5'] });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const data = r.json['data'] as Json[];
    expect(data).toHaveLength(1);
    expect((data[0]?.['attributed_events'] as Json[]).map((e) => [e['event_name'], e['attributed_event_count'], e['event_kind']])).toEqual([['ev_5', 1, 'custom']]);
  });

  it('judges event names per account, whatever the entities and dates', async () => {
    // ev_2000 was received on ad 2 in 2026; asking for ad 0 in one week is still valid (and finds nothing).
    const r = await post({ ...valid(), include: ['attributed_events'], event_names: ['ev_2000'] });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect((r.json['data'] as Json[]).every((row) => (row['attributed_events'] as Json[]).length === 0)).toBe(true);
  });
});

describe('413: row limits, decided before any data is returned', () => {
  const expect413 = (r: { status: number; json: Json }, hint: RegExp) => {
    expect(r.status, JSON.stringify(r.json).slice(0, 300)).toBe(413);
    expect(Object.keys(r.json)).toEqual(['error']);
    expect(r.json['error']).toMatchObject({ type: 'invalid_request_error', code: 'result_too_large', param: null });
    expect(String((r.json['error'] as Json)['message'])).toMatch(hint);
  };

  it('summary rows: zero rows of 8 ads over 360 days (2,880) are too many; 5 ads (1,800) are not', async () => {
    const body = { aggregation_level: 'ad', time_ranges: [YEAR], time_granularity: 'daily', entity_ids: ads };
    expect413(await post(body), /more than 2000 summary rows.*entity_ids.*shorter/s);
    const ok = await post({ ...body, entity_ids: ads.slice(0, 5) });
    expect(ok.status, JSON.stringify(ok.json).slice(0, 300)).toBe(200);
    expect(ok.json['count']).toBe(1800);
    // The 1,050 (day, ad) pairs with data, and zero rows for the rest.
    expect((ok.json['data'] as Json[]).filter((r) => r['conversions'] === 0 && r['order_created_attributed_sales'] === null)).toHaveLength(1800);
  });

  it('summary rows: 2,100 rows with data (by country) are too many, without zero rows too', async () => {
    const body = { aggregation_level: 'ad', time_ranges: [YEAR], time_granularity: 'daily', entity_ids: ads.slice(0, 3), breakdown: 'country', include: ['attributed_events'], include_zero_rows: false };
    expect413(await post(body), /more than 2000 summary rows/);
    // Without the expansion no row has goals or sales, so none is kept.
    const ok = await post({ ...body, include: [] });
    expect(ok.status).toBe(200);
    expect(ok.json['count']).toBe(0);
  });

  it('event rows: 2,100 in total under 3 summary rows are too many; 500 selected names are not', async () => {
    const body = { aggregation_level: 'ad', time_ranges: [YEAR], entity_ids: ads.slice(0, 3), include: ['attributed_events'] };
    expect413(await post(body), /more than 2000 attributed event rows.*event_names/s);
    const ok = await post({ ...body, event_names: Array.from({ length: 500 }, (_, i) => `ev_${i * 4}`) });
    expect(ok.status, JSON.stringify(ok.json).slice(0, 300)).toBe(200);
    expect((ok.json['data'] as Json[]).reduce((n, r) => n + (r['attributed_events'] as Json[]).length, 0)).toBe(500);
    // Summary rows alone are fine.
    expect((await post({ ...body, include: [] })).status).toBe(200);
  });

  it('goal settings: 2,000 entries for one event are fine, 2,001 are too many', async () => {
    const { acct, campaign, ad } = await accountWithOneAd('conversions');
    await load('goals', acct.accountId, [
      { event_id: 'k', type: 'click', timestamp: Date.UTC(2026, 10, 3, 15), user_id: 'u', ad_id: ad },
      { event_id: 'o', type: 'conversion', timestamp: Date.UTC(2026, 10, 3, 16), user_id: 'u', ad_account_id: acct.accountId, event_name: 'order_created', value: '5.10', currency: 'USD' },
    ]);
    // The API gives a campaign one goal; more settings naming the same event are written directly.
    const addSettings = async (n: number, tag: string) => {
      await t.store.run(
        `INSERT INTO conversion_event_settings (id, ad_account_id, name, event_type, custom_event_name, attribution_window_days, archived, created_at_ms, updated_at_ms)
         SELECT 'evset_${tag}' || i, $a, 'Orders ' || i, 'order_created', NULL, 30, false, 0, 0 FROM range($n) r(i)`,
        { a: acct.accountId, n },
      );
      const ids = (await t.store.all('SELECT id FROM conversion_event_settings WHERE ad_account_id = $a ORDER BY id', { a: acct.accountId })).map((r) => String(r['id']));
      await t.store.run('UPDATE campaigns SET conversion_event_setting_ids = $ids WHERE id = $id', { id: campaign, ids: JSON.stringify(ids) });
    };
    const body = { aggregation_level: 'ad', time_ranges: [WEEK], entity_ids: [ad], include: ['attributed_events'] };
    await addSettings(1999, 'a');
    const ok = await post(body, acct.key);
    expect(ok.status, JSON.stringify(ok.json).slice(0, 300)).toBe(200);
    const [row] = ok.json['data'] as Json[];
    expect(row).toMatchObject({ conversions: 1, click_through_conversions: 1, order_created_attributed_sales: '5.1', order_created_attributed_sales_currency: 'USD' });
    const [ev] = row?.['attributed_events'] as Json[];
    expect((ev?.['conversion_event_setting_breakdowns'] as Json[]).length).toBe(2000);
    await addSettings(1, 'b');
    expect413(await post(body, acct.key), /more than 2000 conversion event setting entries/);
    // Without the details there is no breakdown to limit.
    expect((await post({ ...body, include: [] }, acct.key)).status).toBe(200);
  });
});

describe('hostile bodies', () => {
  it('random values in every field give a 200 or a 4xx with the error body, never a 5xx', async () => {
    const anyValue = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double(),
      fc.string(),
      fc.constantFrom('campaign', 'ad', 'daily', 'country', 'attributed_events', 'order_created', WEEK, YEAR, 'NaN', '1e400'),
      fc.array(fc.oneof(fc.string(), fc.constantFrom(WEEK, 'order_created', 'ev_1', '{"type":"unix_range","start":"1","end":"99999999999999"}'), fc.integer()), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
    );
    const field = fc.constantFrom(
      'aggregation_level',
      'time_ranges',
      'time_granularity',
      'entity_ids',
      'group_by_entity',
      'breakdown',
      'attribution_time_basis',
      'attribution_window_days',
      'view_through_attribution_window_days',
      'include',
      'event_names',
      'include_zero_rows',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(field, anyValue), { maxLength: 4 }), async (changes) => {
        const body: Json = { ...valid(), include: ['attributed_events'] };
        for (const [k, v] of changes) body[k] = v;
        const r = await post(body);
        expect(r.status, JSON.stringify(body)).toBeLessThan(500);
        if (r.status >= 400) expect(Object.keys((r.json['error'] as Json) ?? {}).sort()).toEqual(['code', 'message', 'param', 'type']);
      }),
      { numRuns: 150 },
    );
  });
});

describe('an account without goals', () => {
  it('reports its attributed events with zero goal conversions', async () => {
    const { acct, campaign, ad } = await accountWithOneAd('impressions');
    await load('no-goals', acct.accountId, [
      { event_id: 'i', type: 'impression', timestamp: Date.UTC(2026, 10, 3, 15), user_id: 'u', ad_id: ad },
      { event_id: 'o', type: 'conversion', timestamp: Date.UTC(2026, 10, 3, 16), user_id: 'u', ad_account_id: acct.accountId, event_name: 'order_created', value: '7', currency: 'USD' },
    ]);
    const r = await post({ aggregation_level: 'campaign', time_ranges: [WEEK], entity_ids: [campaign], include: ['attributed_events'], include_zero_rows: false }, acct.key);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json['data']).toEqual([
      {
        entity_id: campaign,
        conversions: 0,
        click_through_conversions: 0,
        view_through_conversions: 0,
        order_created_attributed_sales: '7',
        order_created_attributed_sales_currency: 'USD',
        attributed_events: [
          {
            entity_id: campaign,
            event_name: 'order_created',
            event_kind: 'standard',
            attributed_event_count: 1,
            click_through_attributed_event_count: 0,
            view_through_attributed_event_count: 1,
            attributed_event_value_amount: '7',
            attributed_event_value_count: 1,
            attributed_event_value_currency: 'USD',
            conversion_event_setting_breakdowns: [],
          },
        ],
      },
    ]);
  });
});
