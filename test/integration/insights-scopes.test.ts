import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadEventFile } from '../../src/ingest/load-events.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { DAY_MS, referenceRows, refEventLine, rng, type RefAd, type RefEvent } from '../support/reference.js';

/**
 * GET insights beyond the account-wide grid: the campaign, ad group and ad
 * endpoints, filters, sorts, metadata, both includes, every attribution
 * window and time basis, and today's date in a zone ahead of UTC. Numbers
 * come from test/support/reference.ts over the generated events.
 */
const NOW = Date.UTC(2026, 10, 22, 15); // 2026-11-23 02:00 in Sydney
const TZ = 'Australia/Sydney';
let t: TestApp;
let key: string;
let accountId: string;
let feed: string;
const ads = new Map<string, RefAd>();
const names = new Map<string, string>();
const goals = new Map<string, string[]>();
const events: RefEvent[] = [];
const campaigns: string[] = [];

async function call(url: string, body?: object) {
  const res = await t.app.inject({ method: body ? 'POST' : 'GET', url, headers: bearer(key), ...(body ? { payload: body } : {}) });
  return { status: res.statusCode, json: res.json() as Record<string, unknown> };
}
async function idOf(url: string, body: object): Promise<string> {
  const r = await call(url, body);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json['id'] as string;
}

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  ({ key, accountId } = await makeAccount(t, { timezone: TZ }));
  const file = await insertFile(t.store, accountId, null);
  const setting = await idOf('/v1/conversions/event_settings', { name: 'Leads', event_type: 'lead_created' });
  feed = await idOf('/v1/product_feeds', { name: 'Catalog' });
  const items = await call(`/v1/product_feeds/${feed}/items`, {
    items: ['i1', 'i2', 'i3', 'i9'].map((id) => ({ item_id: id, title: `Item ${id}`, price: '9.50' })),
  });
  expect(items.status, JSON.stringify(items.json)).toBe(200);
  for (const [name, bidding] of [
    ['Alpha leads', 'conversions'],
    ['Beta reach', 'impressions'],
    ['Gamma clicks', 'clicks'],
  ] as const) {
    const campaign = await idOf('/v1/campaigns', {
      name,
      status: 'active',
      bidding_type: bidding,
      ...(bidding === 'conversions' ? { conversion_event_setting_ids: [setting] } : {}),
      budget: { lifetime_spend_limit_micros: 5_000_000 },
    });
    campaigns.push(campaign);
    names.set(campaign, name);
    goals.set(campaign, bidding === 'conversions' ? ['lead_created'] : []);
    const group = await idOf('/v1/ad_groups', { campaign_id: campaign, name: `${name} group`, bidding_config: { max_bid_micros: 100 } });
    for (const a of ['one', 'two']) {
      const ad = await idOf('/v1/ads', { ad_group_id: group, name: `${name} ${a}`, creative: { type: 'chat_card', title: `Title ${a}`, target_url: 'https://x.example', file_id: file } });
      ads.set(ad, { id: ad, adGroup: group, campaign, account: accountId });
    }
  }
  // One ad never delivers: zero-impression rows must still list it.
  const idle = await idOf('/v1/ad_groups', { campaign_id: campaigns[1], name: 'Idle group', bidding_config: { max_bid_micros: 100 } });
  await idOf('/v1/ads', { ad_group_id: idle, name: 'Idle ad', creative: { type: 'chat_card', title: 'Idle', target_url: 'https://x.example', file_id: file } });

  const rand = rng(7);
  const adIds = [...ads.keys()];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  // 40 days up to the end of 2026-11-20 in Sydney, so 30-day click windows reach back beyond the report.
  const start = DateTime.fromISO('2026-10-12', { zone: TZ }).toMillis();
  for (let i = 0; i < 4000; i++) {
    const r = rand();
    const type: RefEvent['type'] = r < 0.75 ? 'impression' : r < 0.93 ? 'click' : 'conversion';
    const ts = start + Math.floor(rand() * 40 * DAY_MS);
    const user = `u${Math.floor(rand() * 60)}`;
    if (type === 'conversion') {
      const name = pick(['lead_created', 'order_created']);
      events.push({ event_id: `s${i}`, type, ts, user, event_name: name, ...(name === 'order_created' ? { value: Math.floor(rand() * 5000) / 100 } : {}) });
      continue;
    }
    events.push({
      event_id: `s${i}`,
      type,
      ts,
      user,
      ad: pick(adIds),
      country: pick(['AU', 'NZ', 'US']),
      platform: pick(['ios_web', 'desktop_web', 'web', 'android_app']),
      ...(rand() < 0.5 ? { feed, item: pick(['i1', 'i2']) } : {}),
      cost: Math.floor(rand() * 9000),
    });
  }
  const path = join(t.dataDir, 'scopes.ndjson');
  writeFileSync(
    path,
    events
      .map((e) => refEventLine(e, accountId))
      .join('\n') + '\n',
  );
  expect((await loadEventFile(t, { runId: 'scopes', path, format: 'ndjson', source: 'test', scopeAccountId: accountId })).stored).toBe(events.length);
});
afterAll(() => t.close());

const REPORT = { since: '2026-11-01', until: '2026-11-20' };
const RANGE = JSON.stringify({ type: 'date_range', ...REPORT });
const startMs = DateTime.fromISO(REPORT.since, { zone: TZ }).toMillis();
const endMs = DateTime.fromISO('2026-11-21', { zone: TZ }).toMillis();

async function rows(path: string, query: Record<string, string | string[]>): Promise<Record<string, unknown>[]> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries({ time_ranges: RANGE, limit: '2000', ...query })) for (const x of [v].flat()) qs.append(k, x);
  const r = await call(`/v1${path}?${qs}`);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  expect(r.json['has_more']).toBe(false);
  return r.json['data'] as Record<string, unknown>[];
}

describe('scoped endpoints', () => {
  it('a campaign, an ad group and an ad report only their own delivery', async () => {
    const [ad, info] = [...ads.entries()][0] as [string, RefAd];
    for (const [path, level, keep] of [
      [`/campaigns/${info.campaign}/insights`, 'campaign', (a: RefAd) => a.campaign === info.campaign],
      [`/ad_groups/${info.adGroup}/insights`, 'ad_group', (a: RefAd) => a.adGroup === info.adGroup],
      [`/ads/${ad}/insights`, 'ad', (a: RefAd) => a.id === ad],
    ] as const) {
      const got = await rows(path, { time_granularity: 'none', aggregation_level: 'ad', fields: ['ad.id', 'impressions', 'clicks', 'spend'] });
      const scoped = new Map([...ads].filter(([, a]) => keep(a)));
      const want = referenceRows(events, scoped, { level: 'ad', segment: null, granularity: 'none', timezone: TZ, startMs, endMs, clickDays: 30, viewDays: 1, basis: 'ad_event_time', goals });
      expect(new Set(got.map((r) => r['ad_id'])), level).toEqual(new Set([...want.keys()].map((k) => k.split('|')[1])));
      for (const r of got) {
        const w = want.get(`all|${r['ad_id']}|`);
        expect([r['impressions'], r['clicks'], Math.round(Number(r['spend']) * 1e6)]).toEqual([w?.imp, w?.clk, w?.spendMicros]);
      }
    }
  });
});

describe('attribution parameters', () => {
  for (const clickDays of [7, 14, 30]) {
    for (const viewDays of [0, 1]) {
      for (const basis of ['ad_event_time', 'conversion_time'] as const) {
        it(`click ${clickDays} days, view ${viewDays}, ${basis}`, async () => {
          const got = await rows('/ad_account/insights', {
            aggregation_level: 'ad',
            time_granularity: 'daily',
            fields: ['ad.id', 'conversions', 'click_through_conversions', 'view_through_conversions', 'order_created_attributed_sales', 'clicks', 'post_click_cvr'],
            attribution_window_days: String(clickDays),
            view_through_attribution_window_days: String(viewDays),
            attribution_time_basis: basis,
          });
          const want = referenceRows(events, ads, { level: 'ad', segment: null, granularity: 'daily', timezone: TZ, startMs, endMs, clickDays, viewDays, basis, goals });
          const byKey = new Map(got.map((r) => [`${r['readable_time']}|${r['ad_id']}|`, r]));
          let conversions = 0;
          for (const [k, w] of want) {
            const g = byKey.get(k);
            expect(g, k).toBeDefined();
            conversions += w.convClick + w.convView;
            expect({
              c: g?.['conversions'],
              ct: g?.['click_through_conversions'],
              vt: g?.['view_through_conversions'],
              sales: g?.['order_created_attributed_sales'] === null ? null : Math.round(Number(g?.['order_created_attributed_sales']) * 1e6),
              cvr: g?.['post_click_cvr'],
            }).toEqual({
              c: w.convClick + w.convView,
              ct: w.convClick,
              vt: viewDays === 0 ? 0 : w.convView,
              sales: w.hasSales ? w.salesMicros : null,
              cvr: w.clk > 0 ? w.convClick / w.clk : null,
            });
          }
          expect(conversions).toBeGreaterThan(0);
          expect(byKey.size).toBe(want.size);
        });
      }
    }
  }
});

describe('filters, sorts and metadata', () => {
  it('filters on ids, segment values (web means every web platform), names and metric thresholds', async () => {
    const [c0, c1] = campaigns as [string, string];
    const base = { aggregation_level: 'campaign', time_granularity: 'none' };
    const platform = await rows('/ad_account/insights', {
      ...base,
      segments: ['platform'],
      fields: ['campaign.id', 'platform', 'impressions'],
      filters: [JSON.stringify({ field: 'campaign.id', operator: 'IN', value: [c0, c1] }), JSON.stringify({ field: 'platform', operator: 'IN', value: ['web'] })],
    });
    const want = referenceRows(
      events.filter((e) => ['web', 'ios_web', 'desktop_web', 'android_web'].includes(e.platform ?? '')),
      new Map([...ads].filter(([, a]) => a.campaign === c0 || a.campaign === c1)),
      { level: 'campaign', segment: 'platform', granularity: 'none', timezone: TZ, startMs, endMs, clickDays: 30, viewDays: 1, basis: 'ad_event_time', goals },
    );
    expect(new Map(platform.map((r) => [`all|${r['campaign_id']}|${r['platform']}`, r['impressions']]))).toEqual(new Map([...want].map(([k, w]) => [k, w.imp])));
    // A specific web value leaves historical `web` rows out.
    const specific = await rows('/ad_account/insights', { ...base, segments: ['platform'], fields: ['platform'], filters: [JSON.stringify({ field: 'platform', operator: 'IN', value: ['ios_web'] })] });
    expect(new Set(specific.map((r) => r['platform']))).toEqual(new Set(['ios_web']));

    const all = await rows('/ad_account/insights', { ...base, fields: ['campaign.id', 'campaign.name', 'impressions', 'clicks'] });
    const threshold = Math.min(...all.map((r) => Number(r['impressions']))) + 1;
    const above = await rows('/ad_account/insights', {
      ...base,
      fields: ['campaign.id', 'impressions'],
      filters: [JSON.stringify({ field: 'impressions', operator: 'GREATER_THAN', value: threshold - 1 })],
    });
    expect(above.map((r) => r['campaign_id']).sort()).toEqual(all.filter((r) => Number(r['impressions']) >= threshold).map((r) => r['campaign_id']).sort());
    const byName = await rows('/ad_account/insights', { ...base, fields: ['campaign.id'], filters: [JSON.stringify({ field: 'campaign.name', operator: 'IN', value: ['Beta reach'] })] });
    expect(byName.map((r) => r['campaign_id'])).toEqual([campaigns[1]]);
    expect(new Map(all.map((r) => [r['campaign_id'], r['campaign_name']]))).toEqual(new Map([...names].filter(([id]) => all.some((r) => r['campaign_id'] === id))));
  });

  it('sorts before paging, ties broken the same way every time', async () => {
    const got = await rows('/ad_account/insights', {
      aggregation_level: 'ad',
      time_granularity: 'daily',
      fields: ['ad.id', 'spend', 'clicks'],
      sort: [JSON.stringify({ field: 'ad.clicks', direction: 'desc' }), JSON.stringify({ field: 'spend', direction: 'asc' })],
    });
    for (let i = 1; i < got.length; i++) {
      const [a, b] = [got[i - 1] as Record<string, number>, got[i] as Record<string, number>];
      const [ac, bc, as, bs] = [Number(a['clicks']), Number(b['clicks']), Number(a['spend']), Number(b['spend'])];
      expect(ac > bc || (ac === bc && as <= bs)).toBe(true);
    }
    const again = await rows('/ad_account/insights', {
      aggregation_level: 'ad',
      time_granularity: 'daily',
      fields: ['ad.id', 'spend', 'clicks'],
      sort: [JSON.stringify({ field: 'ad.clicks', direction: 'desc' }), JSON.stringify({ field: 'spend', direction: 'asc' })],
    });
    expect(again).toEqual(got);
  });

  it('reports country names, product metadata, the timezone, and today in Sydney', async () => {
    const got = await rows('/ad_account/insights', {
      time_granularity: 'none',
      segments: ['country'],
      fields: ['country.code', 'country.name', 'metadata.timezone', 'impressions'],
      time_ranges: JSON.stringify({ type: 'date_range', since: '2026-11-01', until: '2026-11-23' }),
    });
    expect(new Map(got.map((r) => [r['country'], r['country_name']]))).toEqual(new Map([['AU', 'Australia'], ['NZ', 'New Zealand'], ['US', 'United States']]));
    expect(new Set(got.map((r) => r['timezone']))).toEqual(new Set([TZ]));
    const products = await rows('/ad_account/insights', { time_granularity: 'none', segments: ['product'], fields: ['product.item_id', 'product.title', 'product.price'] });
    expect(new Map(products.map((r) => [r['product_item_id'] ?? '', [r['product_title'], r['product_price']]]))).toEqual(
      new Map([
        ['i1', ['Item i1', 9.5]],
        ['i2', ['Item i2', 9.5]],
        ['', [null, null]],
      ]),
    );
  });
});

describe('includes', () => {
  it('zero_impression_items lists every ad in every bucket', async () => {
    const got = await rows('/ad_account/insights', { aggregation_level: 'ad', time_granularity: 'daily', fields: ['ad.id', 'ad.name', 'impressions'], includes: ['zero_impression_items'] });
    const dates = new Set(got.map((r) => r['readable_time']));
    expect(dates.size).toBe(20);
    expect(got).toHaveLength(20 * (ads.size + 1));
    const idle = got.filter((r) => r['ad_name'] === 'Idle ad');
    expect(idle).toHaveLength(20);
    expect(idle.every((r) => r['impressions'] === 0)).toBe(true);
  });

  it('zero_impression_products adds configured products without impressions, metrics omitted', async () => {
    const got = await rows('/ad_account/insights', {
      aggregation_level: 'campaign',
      time_granularity: 'none',
      segments: ['product'],
      override_segment_group_order: ['product', 'campaign'],
      includes: ['zero_impression_products'],
      fields: ['product.item_id', 'campaign.id', 'impressions', 'clicks'],
    });
    const synthetic = got.filter((r) => r['campaign_id'] === undefined);
    expect(synthetic.map((r) => r['product_item_id']).sort()).toEqual(['i3', 'i9']);
    for (const r of synthetic) {
      expect(r['impressions']).toBe(0);
      expect(r).not.toHaveProperty('clicks');
    }
    // Product first: rows come grouped by product, then campaign.
    const order = got.map((r) => String(r['product_item_id'] ?? ''));
    expect(order).toEqual([...order].sort());
  });
});
