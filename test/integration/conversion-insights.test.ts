import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadEventFile } from '../../src/ingest/load-events.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import {
  bucketLabel,
  centsText,
  DAY_MS,
  referenceConversionRows,
  refEventLine,
  rng,
  type RefAd,
  type RefConversionQuery,
  type RefEvent,
  type RefGoalSetting,
} from '../support/reference.js';

/**
 * POST /conversions/insights against values computed in the test from the
 * generated raw events (test/support/reference.ts attributes every conversion
 * afresh from EVENTS.md): every window pair, both time bases, both
 * breakdowns, daily and none, grouped and not, with and without the event
 * details and the event_names filter, and both zero-row rules. The range
 * crosses New York's change to daylight saving time (a 23-hour day).
 */
const NOW = Date.UTC(2026, 2, 20, 12);
const TZ = 'America/New_York';
const SINCE = '2026-03-05';
const UNTIL = '2026-03-11';
let t: TestApp;
let key: string;
let accountId: string;
const ads = new Map<string, RefAd>();
const goalSettings = new Map<string, RefGoalSetting[]>();
const events: RefEvent[] = [];
const campaigns: string[] = [];

type Json = Record<string, unknown>;
async function post(url: string, body: object): Promise<{ status: number; json: Json }> {
  const res = await t.app.inject({ method: 'POST', url, headers: bearer(key), payload: body });
  return { status: res.statusCode, json: res.json() as Json };
}
const idOf = async (url: string, body: object): Promise<string> => {
  const r = await post(url, body);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json['id'] as string;
};

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  ({ key, accountId } = await makeAccount(t, { timezone: TZ }));
  const file = await insertFile(t.store, accountId, null);
  const setting = (body: object) => idOf('/v1/conversions/event_settings', body);
  const order = await setting({ name: 'Orders', event_type: 'order_created' });
  const lead = await setting({ name: 'Leads', event_type: 'lead_created' });
  const quiz = await setting({ name: 'Quiz', event_type: 'custom', custom_event_name: 'quiz_done' });
  const order2 = await setting({ name: 'Orders again', event_type: 'order_created' });
  // A setting for a name no event ever had, archived: still a valid event_names entry.
  const never = await setting({ name: 'Never', event_type: 'custom', custom_event_name: 'never_seen' });
  expect((await post(`/v1/conversions/event_settings/${never}/archive`, {})).status).toBe(200);
  expect((await post(`/v1/conversions/event_settings/${order2}/archive`, {})).status).toBe(200);
  const plans = [
    { name: 'Orders', bidding_type: 'conversions', conversion_event_setting_ids: [order] },
    { name: 'Leads', bidding_type: 'conversions', conversion_event_setting_ids: [lead] },
    { name: 'Reach', bidding_type: 'impressions' },
  ];
  for (const plan of plans) {
    const campaign = await idOf('/v1/campaigns', { ...plan, status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000_000 } });
    campaigns.push(campaign);
    for (const g of ['One', 'Two']) {
      const group = await idOf('/v1/ad_groups', { campaign_id: campaign, name: `${plan.name} ${g}`, bidding_config: { max_bid_micros: 100 } });
      for (const a of ['A', 'B']) {
        const ad = await idOf('/v1/ads', { ad_group_id: group, name: `${g}${a}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } });
        ads.set(ad, { id: ad, adGroup: group, campaign, account: accountId });
      }
    }
  }
  // The API lets a conversions campaign have one standard setting; goals through several settings
  // (a custom one, two naming the same event, an archived one) are written directly to exercise the breakdowns.
  const stored: [string, string[]][] = [
    [campaigns[0] as string, [order, quiz, order2]],
    [campaigns[1] as string, [lead]],
  ];
  for (const [c, ids] of stored) await t.store.run('UPDATE campaigns SET conversion_event_setting_ids = $ids WHERE id = $id', { id: c, ids: JSON.stringify(ids) });
  goalSettings.set(campaigns[0] as string, [
    { id: order, event: 'order_created' },
    { id: quiz, event: 'quiz_done' },
    { id: order2, event: 'order_created' },
  ]);
  goalSettings.set(campaigns[1] as string, [{ id: lead, event: 'lead_created' }]);

  // 3,000 events from 2026-03-03 to 2026-03-12 UTC, 60 users; conversions of five names, some with values.
  const rand = rng(7);
  const adIds = [...ads.keys()];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const start = Date.UTC(2026, 2, 3);
  for (let i = 0; i < 3000; i++) {
    const r = rand();
    const type: RefEvent['type'] = r < 0.72 ? 'impression' : r < 0.88 ? 'click' : 'conversion';
    const ts = start + Math.floor(rand() * 9 * DAY_MS);
    // Users u40..u59 never click: their conversions can only be view-through.
    const user = `u${Math.floor(rand() * (type === 'click' ? 40 : 60))}`;
    if (type === 'conversion') {
      const name = pick(['order_created', 'order_created', 'lead_created', 'quiz_done', 'page_viewed']);
      const valued = name === 'order_created' ? rand() < 0.9 : name === 'quiz_done' && rand() < 0.5;
      events.push({ event_id: `e${i}`, type, ts, user, event_name: name, ...(valued ? { value: Math.floor(rand() * 10_000) / 100 } : {}) });
      continue;
    }
    events.push({
      event_id: `e${i}`,
      type,
      ts,
      user,
      ad: pick(adIds),
      country: pick(['US', 'DE', 'IN', undefined]),
      device: pick(['mobile', 'desktop', 'tablet', undefined]),
      cost: Math.floor(rand() * 5000),
    });
  }
  // A received event name that is never attributed (its user has no clicks or impressions).
  events.push({ event_id: 'orphan', type: 'conversion', ts: start + DAY_MS, user: 'nobody', event_name: 'orphan_event' });
  const path = join(t.dataDir, 'conv.ndjson');
  writeFileSync(path, events.map((e) => refEventLine(e, accountId)).join('\n') + '\n');
  const run = await loadEventFile(t, { runId: 'conv', path, format: 'ndjson', source: 'test', scopeAccountId: accountId });
  expect(run.stored).toBe(events.length);
});
afterAll(() => t.close());

type Level = RefConversionQuery['level'];
interface Case {
  level: Level;
  groupByEntity: boolean;
  /** Entities sent in entity_ids, or null to omit them. */
  entityIds: string[] | null;
  breakdown: 'country' | 'device' | null;
  granularity: 'daily' | 'none';
  clickDays: 7 | 14 | 30;
  viewDays: 0 | 1;
  basis: 'ad_event_time' | 'conversion_time';
  expand: boolean;
  eventNames: string[] | null;
  includeZeroRows: boolean;
}

const entitiesAt = (level: Level): string[] => [...new Set([...ads.values()].map((a) => ({ campaign: a.campaign, ad_group: a.adGroup, ad: a.id })[level]))];
/** All entities of a level but the last, so the entity filter has something to leave out. */
const someEntities = (level: Level): string[] => entitiesAt(level).slice(0, -1);

function body(c: Case): Json {
  return {
    aggregation_level: c.level,
    time_ranges: [JSON.stringify({ type: 'date_range', since: SINCE, until: UNTIL })],
    time_granularity: c.granularity,
    ...(c.entityIds === null ? {} : { entity_ids: c.entityIds }),
    group_by_entity: c.groupByEntity,
    breakdown: c.breakdown,
    attribution_time_basis: c.basis,
    attribution_window_days: c.clickDays,
    view_through_attribution_window_days: c.viewDays,
    include: c.expand ? ['attributed_events'] : [],
    ...(c.eventNames === null ? {} : { event_names: c.eventNames }),
    include_zero_rows: c.includeZeroRows,
  };
}

const localDays = (): string[] => {
  const out: string[] = [];
  for (let d = DateTime.fromISO(SINCE, { zone: TZ }); d.toISODate() !== DateTime.fromISO(UNTIL, { zone: TZ }).plus({ days: 1 }).toISODate(); d = d.plus({ days: 1 })) {
    out.push(d.toISODate() ?? '');
  }
  return out;
};

/** The expected response rows, keyed as `rowKey` keys the actual ones, in the spec's terms. */
function expected(c: Case): Map<string, Json> {
  const q: RefConversionQuery = {
    accountId,
    level: c.level,
    groupByEntity: c.groupByEntity,
    entityIds: c.entityIds,
    breakdown: c.breakdown,
    granularity: c.granularity,
    timezone: TZ,
    startMs: DateTime.fromISO(SINCE, { zone: TZ }).toMillis(),
    endMs: DateTime.fromISO(UNTIL, { zone: TZ }).plus({ days: 1 }).toMillis(),
    clickDays: c.clickDays,
    viewDays: c.viewDays,
    basis: c.basis,
    goalSettings,
    eventNames: c.eventNames,
  };
  const rows = referenceConversionRows(events, ads, q);
  // include_zero_rows: every report entity on every date; a pair without data gets one zero row (breakdown value null).
  if (c.includeZeroRows) {
    const entities = c.groupByEntity ? (c.entityIds ?? []) : [accountId];
    const dates = c.granularity === 'none' ? ['all'] : localDays();
    for (const d of dates)
      for (const e of entities) {
        if (![...rows.keys()].some((k) => k.startsWith(`${d}|${e}|`))) rows.set(`${d}|${e}|<zero>`, { convClick: 0, convView: 0, salesCents: 0, hasSales: false, events: new Map() });
      }
  }
  const out = new Map<string, Json>();
  for (const [k, r] of rows) {
    const picked = [...r.events.values()].reduce((n, e) => n + e.n, 0);
    // Spec: without zero rows, keep a row with goal conversions, a nonzero sales amount or (expanded) a selected event.
    if (!c.includeZeroRows && r.convClick + r.convView === 0 && r.salesCents === 0 && !(c.expand && picked > 0)) continue;
    const [date, entity, seg] = k.split('|') as [string, string, string];
    const keys: Json = { entity_id: entity };
    if (c.granularity === 'daily') keys['date'] = date;
    if (c.breakdown !== null) keys[c.breakdown] = seg === '' || seg === '<zero>' ? null : seg;
    const row: Json = {
      ...keys,
      conversions: r.convClick + r.convView,
      click_through_conversions: r.convClick,
      view_through_conversions: r.convView,
      order_created_attributed_sales: r.hasSales ? centsText(r.salesCents) : null,
      order_created_attributed_sales_currency: r.hasSales ? 'USD' : null,
    };
    if (c.expand) {
      row['attributed_events'] = [...r.events.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, e]) => ({
          ...keys,
          event_name: name,
          event_kind: ['order_created', 'lead_created', 'page_viewed'].includes(name) ? 'standard' : 'custom',
          attributed_event_count: e.n,
          click_through_attributed_event_count: e.click,
          view_through_attributed_event_count: e.view,
          attributed_event_value_amount: e.valueCount > 0 ? centsText(e.valueCents) : null,
          attributed_event_value_count: e.valueCount,
          attributed_event_value_currency: e.valueCount > 0 ? 'USD' : null,
          conversion_event_setting_breakdowns: [...e.settings.entries()]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([id, s]) => ({ conversion_event_setting_id: id, conversions: s.click + s.view, click_through_conversions: s.click, view_through_conversions: s.view })),
        }));
    }
    out.set(rowKey(row, c), row);
  }
  return out;
}

function rowKey(row: Json, c: Case): string {
  return JSON.stringify([row['date'] ?? 'all', row['entity_id'], c.breakdown === null ? '' : row[c.breakdown]]);
}

async function check(c: Case): Promise<Json[]> {
  const r = await post('/v1/conversions/insights', body(c));
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  const data = r.json['data'] as Json[];
  expect(r.json['object']).toBe('list');
  expect(r.json['account_currency']).toBe('USD');
  expect(r.json['count']).toBe(data.length);
  const want = expected(c);
  const got = new Map(data.map((row) => [rowKey(row, c), row]));
  expect(got.size, 'no duplicate rows').toBe(data.length);
  expect([...got.keys()].sort(), JSON.stringify(c)).toEqual([...want.keys()].sort());
  for (const [k, w] of want) expect(got.get(k), `${JSON.stringify(c)} row ${k}`).toEqual(w);
  // Rows come by date, entity id and breakdown value (unknown last); details by event name.
  const order = (row: Json) => [String(row['date'] ?? ''), String(row['entity_id']), c.breakdown === null || row[c.breakdown] === null ? '\uffff' : String(row[c.breakdown])];
  const sorted = [...data].sort((x, y) => (JSON.stringify(order(x)) < JSON.stringify(order(y)) ? -1 : 1));
  expect(data.map(order)).toEqual(sorted.map(order));
  for (const row of data) {
    const names = ((row['attributed_events'] as Json[] | undefined) ?? []).map((e) => String(e['event_name']));
    expect(names).toEqual([...names].sort());
  }
  return data;
}

const BASE: Case = {
  level: 'ad',
  groupByEntity: true,
  entityIds: null,
  breakdown: null,
  granularity: 'daily',
  clickDays: 30,
  viewDays: 1,
  basis: 'ad_event_time',
  expand: true,
  eventNames: null,
  includeZeroRows: true,
};

describe('POST /conversions/insights against the reference', () => {
  it('has data to compare: goal and non-goal, click and view, valued and not', async () => {
    const rows = await check({ ...BASE, entityIds: entitiesAt('ad'), granularity: 'none' });
    const total = (f: string) => rows.reduce((n, r) => n + Number(r[f]), 0);
    expect(total('click_through_conversions')).toBeGreaterThan(10);
    expect(total('view_through_conversions')).toBeGreaterThan(3);
    const evs = rows.flatMap((r) => r['attributed_events'] as Json[]);
    expect(new Set(evs.map((e) => e['event_name']))).toEqual(new Set(['order_created', 'lead_created', 'quiz_done', 'page_viewed']));
    expect(evs.some((e) => (e['conversion_event_setting_breakdowns'] as Json[]).length === 2)).toBe(true);
  });

  for (const clickDays of [7, 14, 30] as const) {
    for (const viewDays of [0, 1] as const) {
      for (const basis of ['ad_event_time', 'conversion_time'] as const) {
        it(`click ${clickDays} days, view ${viewDays}, ${basis}: ads by day, each breakdown`, async () => {
          for (const breakdown of [null, 'country', 'device'] as const) {
            const rows = await check({ ...BASE, clickDays, viewDays, basis, breakdown, entityIds: someEntities('ad') });
            if (viewDays === 0) expect(rows.every((r) => r['view_through_conversions'] === 0)).toBe(true);
          }
        });
      }
    }
  }

  for (const level of ['campaign', 'ad_group', 'ad'] as const) {
    it(`${level}: grouped and across entities, daily and none, each breakdown, with and without details`, async () => {
      for (const granularity of ['daily', 'none'] as const) {
        for (const breakdown of [null, 'country', 'device'] as const) {
          for (const [groupByEntity, entityIds] of [
            [true, someEntities(level)],
            [false, null],
            [false, someEntities(level)],
          ] as const) {
            for (const expand of [true, false]) await check({ ...BASE, level, granularity, breakdown, groupByEntity, entityIds: entityIds === null ? null : [...entityIds], expand });
          }
        }
      }
    });
  }

  it('event_names selects details only; summary values stay', async () => {
    const all = await check({ ...BASE, level: 'campaign', entityIds: entitiesAt('campaign'), granularity: 'none' });
    for (const names of [['quiz_done'], ['lead_created', 'page_viewed', 'lead_created'], ['never_seen'], ['orphan_event']]) {
      const some = await check({ ...BASE, level: 'campaign', entityIds: entitiesAt('campaign'), granularity: 'none', eventNames: names });
      const strip = (rows: Json[]) => rows.map(({ attributed_events: _, ...rest }) => rest);
      expect(strip(some)).toEqual(strip(all));
      for (const r of some) for (const e of r['attributed_events'] as Json[]) expect(names).toContain(e['event_name']);
    }
  });

  it('include_zero_rows false keeps rows with goals, sales or selected events; a sales row stays with empty details', async () => {
    for (const c of [
      { ...BASE, entityIds: entitiesAt('ad'), includeZeroRows: false },
      { ...BASE, entityIds: entitiesAt('ad'), includeZeroRows: false, eventNames: ['page_viewed'] },
      { ...BASE, entityIds: entitiesAt('ad'), includeZeroRows: false, expand: false },
      { ...BASE, entityIds: entitiesAt('ad'), includeZeroRows: false, breakdown: 'country' as const, clickDays: 7 as const, viewDays: 0 as const },
    ]) {
      await check(c);
    }
    const rows = await check({ ...BASE, entityIds: entitiesAt('ad'), includeZeroRows: false, eventNames: ['page_viewed'] });
    // Rows kept only for their sales or goals, with no selected event: empty details.
    expect(rows.some((r) => (r['attributed_events'] as Json[]).length === 0 && r['order_created_attributed_sales'] !== null)).toBe(true);
    const zero = await check({ ...BASE, entityIds: entitiesAt('ad'), includeZeroRows: true, eventNames: ['page_viewed'] });
    expect(zero.length).toBeGreaterThan(rows.length);
  });

  it('unix_range bounds as integers or numeric strings give the same report as the date_range', async () => {
    const start = DateTime.fromISO(SINCE, { zone: TZ }).toSeconds();
    const end = DateTime.fromISO(UNTIL, { zone: TZ }).plus({ days: 1 }).toSeconds();
    const base = body({ ...BASE, entityIds: entitiesAt('ad') });
    const byDate = await post('/v1/conversions/insights', base);
    for (const range of [{ type: 'unix_range', start, end }, { type: 'unix_range', start: String(start), end: String(end) }]) {
      const r = await post('/v1/conversions/insights', { ...base, time_ranges: [JSON.stringify(range)] });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json).toEqual(byDate.json);
    }
  });

  it('attribution windows: omitted or null are the defaults (30 and 1)', async () => {
    const base = body({ ...BASE, entityIds: entitiesAt('ad'), granularity: 'none' });
    const explicit = await post('/v1/conversions/insights', base);
    const { attribution_window_days: _a, view_through_attribution_window_days: _v, ...omitted } = base;
    expect((await post('/v1/conversions/insights', omitted)).json).toEqual(explicit.json);
    expect((await post('/v1/conversions/insights', { ...base, attribution_window_days: null, view_through_attribution_window_days: null })).json).toEqual(explicit.json);
  });
});

describe('agreement with GET insights conversions', () => {
  it('same entities, dates, windows and time basis give the same goal counts and sales', async () => {
    for (const [clickDays, viewDays, basis] of [
      [30, 1, 'ad_event_time'],
      [7, 0, 'conversion_time'],
      [14, 1, 'conversion_time'],
    ] as const) {
      for (const level of ['campaign', 'ad'] as const) {
        for (const breakdown of [null, 'country'] as const) {
          const conv = await post('/v1/conversions/insights', body({ ...BASE, level, breakdown, entityIds: entitiesAt(level), clickDays, viewDays, basis, expand: false, includeZeroRows: false }));
          expect(conv.status).toBe(200);
          const qs = new URLSearchParams({
            aggregation_level: level,
            time_granularity: 'daily',
            time_ranges: JSON.stringify({ type: 'date_range', since: SINCE, until: UNTIL }),
            attribution_window_days: String(clickDays),
            view_through_attribution_window_days: String(viewDays),
            attribution_time_basis: basis,
            limit: '2000',
          });
          for (const f of [`${level}.id`, 'readable_time', 'conversions', 'click_through_conversions', 'view_through_conversions', 'order_created_attributed_sales']) qs.append('fields', f);
          if (breakdown !== null) {
            qs.append('segments', breakdown);
            qs.append('fields', 'country.code');
          }
          const res = await t.app.inject({ url: `/v1/ad_account/insights?${qs}`, headers: bearer(key) });
          expect(res.statusCode, res.body).toBe(200);
          const get = (res.json() as { data: Json[]; has_more: boolean });
          expect(get.has_more).toBe(false);
          // [date, entity, country] -> [conversions, click-through, view-through, sales in cents], for rows with goals or sales
          // (GET also has rows for delivery alone, conversion insights without zero rows has none).
          const summarize = (rows: Json[], date: string, id: string, seg: string) =>
            rows
              .map((r) => {
                const sales = r['order_created_attributed_sales'] === null ? 0 : Math.round(Number(r['order_created_attributed_sales']) * 100);
                return [JSON.stringify([r[date], r[id], breakdown === null ? null : (r[seg] ?? null)]), r['conversions'], r['click_through_conversions'], r['view_through_conversions'], sales] as const;
              })
              .filter((r) => Number(r[1]) > 0 || r[4] !== 0)
              .sort((x, y) => (x[0] < y[0] ? -1 : 1));
          const a = summarize(conv.json['data'] as Json[], 'date', 'entity_id', breakdown ?? '');
          const b = summarize(get.data, 'readable_time', `${level}_id`, 'country');
          expect(a, `${clickDays}/${viewDays}/${basis}/${level}/${breakdown}`).toEqual(b);
          expect(a.reduce((n, x) => n + Number(x[1]), 0)).toBeGreaterThan(0);
        }
      }
    }
  });
});

describe('the bucket of a conversion', () => {
  it('is its local day of the account timezone, including the 23-hour DST day', async () => {
    const rows = await check({ ...BASE, level: 'campaign', entityIds: entitiesAt('campaign') });
    expect(new Set(rows.map((r) => r['date']))).toEqual(new Set(localDays()));
    expect(bucketLabel(Date.UTC(2026, 2, 8, 4, 30), 'daily', TZ)).toBe('2026-03-07');
  });
});
