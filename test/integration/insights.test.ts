import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadEventFile } from '../../src/ingest/load-events.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { DAY_MS, HOUR_MS, referenceRows, refEventLine, rng, type RefAd, type RefEvent, type RefGranularity, type RefLevel, type RefSegment } from '../support/reference.js';

/**
 * GET insights against rows computed in the test from the generated raw
 * events (test/support/reference.ts: per event, in the report's timezone),
 * for every level, granularity and segment, in three timezones (one with a
 * DST change inside the range, one at +5:30, one at +5:45).
 */
const NOW = Date.UTC(2026, 2, 20, 12);
const ACCOUNT_TZ = 'America/New_York';
/** The account's timezone now (one test changes it): conversion metrics need its full days. */
let accountTz = ACCOUNT_TZ;
let t: TestApp;
let key: string;
let accountId: string;
const ads = new Map<string, RefAd>();
const goals = new Map<string, string[]>();
const events: RefEvent[] = [];

async function call(url: string, body?: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await t.app.inject({ method: body ? 'POST' : 'GET', url, headers: bearer(key), ...(body ? { payload: body } : {}) });
  return { status: res.statusCode, json: res.json() as Record<string, unknown> };
}
const idOf = async (url: string, body: object) => {
  const r = await call(url, body);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json['id'] as string;
};

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  ({ key, accountId } = await makeAccount(t, { timezone: ACCOUNT_TZ }));
  const file = await insertFile(t.store, accountId, null);
  const setting = await idOf('/v1/conversions/event_settings', { name: 'Orders', event_type: 'order_created' });
  const plans = [
    { name: 'Conversions', bidding_type: 'conversions', conversion_event_setting_ids: [setting] },
    { name: 'Reach', bidding_type: 'impressions' },
  ];
  for (const plan of plans) {
    const campaign = await idOf('/v1/campaigns', { ...plan, status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000_000 } });
    goals.set(campaign, plan.bidding_type === 'conversions' ? ['order_created'] : []);
    for (const g of ['One', 'Two']) {
      const group = await idOf('/v1/ad_groups', { campaign_id: campaign, name: `${plan.name} ${g}`, bidding_config: { max_bid_micros: 100 } });
      for (const a of ['A', 'B']) {
        const ad = await idOf('/v1/ads', { ad_group_id: group, name: `${g}${a}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } });
        ads.set(ad, { id: ad, adGroup: group, campaign, account: accountId });
      }
    }
  }
  // Three thousand events from 2026-03-04 to 2026-03-12 UTC (New York changes to DST on 2026-03-08).
  const rand = rng(42);
  const adIds = [...ads.keys()];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const start = Date.UTC(2026, 2, 4);
  for (let i = 0; i < 3000; i++) {
    const r = rand();
    const type: RefEvent['type'] = r < 0.8 ? 'impression' : r < 0.94 ? 'click' : 'conversion';
    const ts = start + Math.floor(rand() * 8 * DAY_MS);
    const user = `u${Math.floor(rand() * 40)}`;
    if (type === 'conversion') {
      const name = pick(['order_created', 'order_created', 'lead_created']);
      events.push({ event_id: `e${i}`, type, ts, user, event_name: name, ...(name === 'order_created' ? { value: Math.floor(rand() * 10_000) / 100 } : {}) });
      continue;
    }
    const product = rand() < 0.4;
    events.push({
      event_id: `e${i}`,
      type,
      ts,
      user: type === 'impression' && rand() < 0.1 ? undefined : user,
      ad: pick(adIds),
      country: pick(['US', 'DE', 'IN', undefined]),
      device: pick(['mobile', 'desktop', 'tablet', undefined]),
      platform: pick(['ios_app', 'android_web', 'desktop_web', 'web', undefined]),
      ...(product ? { feed: 'f1', item: pick(['i1', 'i2', 'i3']) } : {}),
      cost: Math.floor(rand() * 5000),
    });
  }
  const loaded = await loadEvents('insights', events);
  expect(loaded.stored).toBe(events.length);
});
afterAll(() => t.close());

async function loadEvents(name: string, batch: readonly RefEvent[]) {
  const path = join(t.dataDir, `${name}.ndjson`);
  writeFileSync(path, batch.map((e) => refEventLine(e, accountId)).join('\n') + '\n');
  return loadEventFile(t, { runId: name, path, format: 'ndjson', source: 'test', scopeAccountId: accountId });
}

const LEVEL_PATH = (level: RefLevel) => ({ ad_account: '/v1/ad_account/insights' })[level as 'ad_account'];
const SEGMENT_FIELDS: Record<Exclude<RefSegment, null>, string[]> = {
  country: ['country.code'],
  device: ['device.type'],
  platform: ['platform'],
  product: ['product.feed_id', 'product.item_id'],
};

interface Case {
  level: RefLevel;
  segment: RefSegment;
  granularity: RefGranularity;
  timezone: string;
  /** Local dates of the range (default 2026-03-05 to 2026-03-11). */
  since?: string;
  until?: string;
}

async function allRows(query: Record<string, string | string[]>): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let after: string | undefined;
  for (;;) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...query, limit: '2000', ...(after ? { after } : {}) })) for (const x of [v].flat()) qs.append(k, x);
    const r = await call(`${LEVEL_PATH('ad_account')}?${qs}`);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    rows.push(...(r.json['data'] as Record<string, unknown>[]));
    if (!r.json['has_more']) return rows;
    after = r.json['last_id'] as string;
  }
}

function rowKey(row: Record<string, unknown>, c: Case): string {
  const bucket = c.granularity === 'none' ? 'all' : String(row['readable_time']);
  const entity = String(row[`${c.level}_id`]);
  let seg = '';
  if (c.segment === 'product') seg = `${row['product_feed_id'] ?? ''}/${row['product_item_id'] ?? ''}`;
  else if (c.segment === 'country') seg = String(row['country'] ?? '');
  else if (c.segment === 'device') seg = String(row['device_type'] ?? '');
  else if (c.segment === 'platform') seg = String(row['platform'] ?? '');
  return `${bucket}|${entity}|${seg}`;
}

async function check(c: Case): Promise<void> {
  const conversions = c.timezone === accountTz && c.segment !== 'platform';
  const fields = [
    `${c.level}.id`,
    'impressions',
    'clicks',
    'spend',
    ...(c.granularity === 'none' ? [] : ['metadata.readable_time']),
    ...(conversions ? ['conversions', 'click_through_conversions', 'view_through_conversions', 'order_created_attributed_sales'] : []),
    ...(c.segment === null ? [] : SEGMENT_FIELDS[c.segment]),
  ];
  const since = c.since ?? '2026-03-05';
  const until = c.until ?? '2026-03-11';
  const range = { type: 'date_range', since, until, timezone: c.timezone };
  const rows = await allRows({
    aggregation_level: c.level,
    time_granularity: c.granularity,
    time_ranges: [JSON.stringify(range)],
    fields,
    ...(c.segment === null ? {} : { segments: [c.segment] }),
  });
  const startMs = DateTime.fromISO(since, { zone: c.timezone }).toMillis();
  const endMs = DateTime.fromISO(until, { zone: c.timezone }).plus({ days: 1 }).toMillis();
  const want = referenceRows(events, ads, { ...c, startMs, endMs, clickDays: 30, viewDays: 1, basis: 'ad_event_time', goals });
  const got = new Map(rows.map((r) => [rowKey(r, c), r]));
  expect(got.size, 'no duplicate rows').toBe(rows.length);
  expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
  for (const [k, w] of want) {
    const g = got.get(k) as Record<string, unknown>;
    const actual = { imp: g['impressions'], clk: g['clicks'], spend: Math.round(Number(g['spend']) * 1e6) } as Record<string, unknown>;
    const expected = { imp: w.imp, clk: w.clk, spend: w.spendMicros } as Record<string, unknown>;
    if (conversions) {
      Object.assign(actual, {
        conv: g['conversions'],
        ct: g['click_through_conversions'],
        vt: g['view_through_conversions'],
        sales: g['order_created_attributed_sales'] === null ? null : Math.round(Number(g['order_created_attributed_sales']) * 1e6),
      });
      Object.assign(expected, { conv: w.convClick + w.convView, ct: w.convClick, vt: w.convView, sales: w.hasSales ? w.salesMicros : null });
    }
    expect(actual, `${JSON.stringify(c)} row ${k}`).toEqual(expected);
  }
}

describe('GET /ad_account/insights against the reference', () => {
  const levels: RefLevel[] = ['ad_account', 'campaign', 'ad_group', 'ad'];
  for (const timezone of [ACCOUNT_TZ, 'Asia/Kolkata', 'Asia/Kathmandu']) {
    for (const granularity of ['hourly', 'daily', 'monthly', 'none'] as const) {
      it(`every level and segment, ${granularity}, ${timezone}`, async () => {
        for (const level of levels) {
          for (const segment of [null, 'country', 'device', 'platform', 'product'] as const) {
            if (segment !== null && granularity === 'hourly') continue;
            await check({ level, segment, granularity, timezone });
          }
        }
      });
    }
  }

  it('has 23-hour and 25-hour days where DST changes, and no missing or doubled hour', async () => {
    const r = await call(
      `/v1/ad_account/insights?time_granularity=hourly&fields=impressions&limit=2000&time_ranges=${encodeURIComponent(JSON.stringify({ type: 'date_range', since: '2026-03-07', until: '2026-03-09' }))}`,
    );
    const labels = (r.json['data'] as { readable_time: string; start_time: number; end_time: number }[]).map((x) => x.readable_time);
    // Only hours with data appear; every hour that appears is one local hour long, and none repeats.
    expect(new Set(labels).size).toBe(labels.length);
    for (const row of r.json['data'] as { start_time: number; end_time: number }[]) expect(row.end_time - row.start_time).toBe(HOUR_MS / 1000);
    const daily = await call(
      `/v1/ad_account/insights?time_granularity=daily&fields=impressions&time_ranges=${encodeURIComponent(JSON.stringify({ type: 'date_range', since: '2026-03-07', until: '2026-03-09' }))}`,
    );
    const lengths = (daily.json['data'] as { start_time: number; end_time: number }[]).map((x) => (x.end_time - x.start_time) / 3600);
    expect(lengths).toEqual([24, 23, 24]);
  });
});

describe('calendar rollups (days and months of the account zone)', () => {
  const more = (seed: number, n: number): RefEvent[] => {
    const rand = rng(seed);
    const adIds = [...ads.keys()];
    return Array.from({ length: n }, (_, i) => ({
      event_id: `more${seed}-${i}`,
      type: rand() < 0.9 ? ('impression' as const) : ('click' as const),
      ts: Date.UTC(2026, 2, 5) + Math.floor(rand() * 6 * DAY_MS),
      user: `u${Math.floor(rand() * 40)}`,
      ad: adIds[Math.floor(rand() * adIds.length)] as string,
      country: rand() < 0.5 ? 'US' : 'DE',
      cost: Math.floor(rand() * 5000),
    }));
  };
  const checkAll = async (timezones: string[]) => {
    for (const timezone of timezones)
      for (const granularity of ['daily', 'monthly', 'none'] as const)
        for (const level of ['ad_account', 'ad'] as const) for (const segment of [null, 'country'] as const) await check({ level, segment, granularity, timezone });
  };

  it('read a month less its days outside the range where that reads less, exactly', async () => {
    // March 4-20 in New York: March read whole less March 1-3 (which hold events of March 4 UTC) and 21-31.
    for (const granularity of ['monthly', 'none'] as const)
      for (const level of ['ad_account', 'campaign', 'ad'] as const)
        for (const segment of [null, 'country', 'product'] as const) await check({ level, segment, granularity, timezone: ACCOUNT_TZ, since: '2026-03-04', until: '2026-03-20' });
  });

  it('hold the account zone\'s local days, and are used for them', async () => {
    const days = await t.store.all(`SELECT bucket, sum(impressions) AS imp FROM rollup_1d WHERE segment = 'none' GROUP BY ALL ORDER BY bucket`);
    const want = new Map<number, number>();
    for (const e of events) {
      if (e.type !== 'impression') continue;
      const day = DateTime.fromMillis(e.ts, { zone: ACCOUNT_TZ }).startOf('day').toSeconds() / 900;
      want.set(day, (want.get(day) ?? 0) + 1);
    }
    expect(days.map((d) => [Number(d['bucket']), Number(d['imp'])])).toEqual([...want].sort((a, b) => a[0] - b[0]));
  });

  it('are built for earlier loads when a store from before them loads again', async () => {
    for (const table of ['rollup_1d', 'rollup_1mo', 'rollup_calendars']) await t.store.run(`DELETE FROM ${table}`);
    const batch = more(7, 300);
    expect((await loadEvents('after-upgrade', batch)).stored).toBe(batch.length);
    events.push(...batch);
    expect(Number((await t.store.get(`SELECT count(*) AS n FROM rollup_1d WHERE load_seq < (SELECT max(seq) FROM data_loads)`))?.['n'])).toBeGreaterThan(0);
    await checkAll([ACCOUNT_TZ]);
  });

  it('keep their zone when the account\'s timezone changes, and every zone stays exact', async () => {
    accountTz = 'Asia/Kolkata';
    await t.store.run(`UPDATE ad_accounts SET timezone = $tz WHERE id = $id`, { id: accountId, tz: accountTz });
    const batch = more(8, 300);
    expect((await loadEvents('after-tz-change', batch)).stored).toBe(batch.length);
    events.push(...batch);
    expect(await t.store.get(`SELECT timezone FROM rollup_calendars WHERE ad_account_id = $id`, { id: accountId })).toEqual({ timezone: ACCOUNT_TZ });
    await checkAll([ACCOUNT_TZ, 'Asia/Kolkata']);
    accountTz = ACCOUNT_TZ;
    await t.store.run(`UPDATE ad_accounts SET timezone = $tz WHERE id = $id`, { id: accountId, tz: accountTz });
  });
});
