import { DateTime } from 'luxon';

/**
 * Reference computations written straight from shared/EVENTS.md, for tests to
 * compare the engine with: attribution (last touch, clicks first) and report
 * rows cut per event in the report's timezone. Deliberately naive: loops over
 * raw events, no rollups, no quarter-hour maps.
 */
/** Small deterministic PRNG (mulberry32), so failures reproduce. */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export interface RefEvent {
  event_id: string;
  type: 'impression' | 'click' | 'conversion';
  /** Unix milliseconds. */
  ts: number;
  user?: string | undefined;
  ad?: string | undefined;
  country?: string | undefined;
  device?: string | undefined;
  platform?: string | undefined;
  feed?: string | undefined;
  item?: string | undefined;
  cost?: number | undefined;
  event_name?: string | undefined;
  value?: number | undefined;
}

/** EVENTS.md, Attribution, step by step: the attributed touch of a conversion, or null. */
export function attributeConversion(events: readonly RefEvent[], conv: RefEvent, clickDays: number, viewDays: number): { kind: 'click' | 'view'; touch: RefEvent } | null {
  const latest = (type: RefEvent['type'], windowMs: number) =>
    events
      .filter((e) => e.type === type && e.user !== undefined && e.user === conv.user && e.ts <= conv.ts && e.ts >= conv.ts - windowMs)
      .sort((x, y) => y.ts - x.ts || (y.event_id > x.event_id ? 1 : -1))[0];
  const click = latest('click', clickDays * DAY_MS);
  if (click) return { kind: 'click', touch: click };
  if (viewDays === 1) {
    const view = latest('impression', DAY_MS);
    if (view) return { kind: 'view', touch: view };
  }
  return null;
}

export interface RefAd {
  id: string;
  adGroup: string;
  campaign: string;
  account: string;
}

export type RefLevel = 'ad_account' | 'campaign' | 'ad_group' | 'ad';
export type RefSegment = 'country' | 'device' | 'platform' | 'product' | null;
export type RefGranularity = 'hourly' | 'daily' | 'monthly' | 'none';

export interface RefRow {
  imp: number;
  clk: number;
  spendMicros: number;
  convClick: number;
  convView: number;
  /** Sales in micros (values are whole cents in the tests). */
  salesMicros: number;
  hasSales: boolean;
}

export interface RefQuery {
  level: RefLevel;
  segment: RefSegment;
  granularity: RefGranularity;
  timezone: string;
  startMs: number;
  endMs: number;
  clickDays: number;
  viewDays: number;
  basis: 'ad_event_time' | 'conversion_time';
  /** Campaign id -> event names that are its goals. */
  goals: ReadonlyMap<string, readonly string[]>;
}

const FORMAT = { hourly: "yyyy-MM-dd'T'HH", daily: 'yyyy-MM-dd', monthly: 'yyyy-MM' } as const;
const UNIT = { hourly: 'hour', daily: 'day', monthly: 'month' } as const;

export function bucketLabel(ts: number, granularity: RefGranularity, timezone: string): string {
  if (granularity === 'none') return 'all';
  return DateTime.fromMillis(ts, { zone: timezone }).startOf(UNIT[granularity]).toFormat(FORMAT[granularity]);
}

function segmentKey(e: RefEvent, segment: RefSegment): string {
  if (segment === null) return '';
  if (segment === 'product') return `${e.feed ?? ''}/${e.item ?? ''}`;
  return e[segment] ?? '';
}

/** Every attributed conversion with its touch's ad and its place in time (by the time basis), inside [startMs, endMs). */
function* attributedConversions(
  events: readonly RefEvent[],
  ads: ReadonlyMap<string, RefAd>,
  q: Pick<RefQuery, 'startMs' | 'endMs' | 'clickDays' | 'viewDays' | 'basis'>,
): Generator<{ conv: RefEvent; a: { kind: 'click' | 'view'; touch: RefEvent }; ad: RefAd; at: number }> {
  for (const conv of events) {
    if (conv.type !== 'conversion') continue;
    const a = attributeConversion(events, conv, q.clickDays, q.viewDays);
    if (a === null) continue;
    const ad = ads.get(a.touch.ad ?? '');
    if (!ad) continue;
    const at = q.basis === 'ad_event_time' ? a.touch.ts : conv.ts;
    if (at >= q.startMs && at < q.endMs) yield { conv, a, ad, at };
  }
}

/** Expected rows keyed `bucket|entity|segment`, from stored (valid, deduplicated) events. */
export function referenceRows(events: readonly RefEvent[], ads: ReadonlyMap<string, RefAd>, q: RefQuery): Map<string, RefRow> {
  const rows = new Map<string, RefRow>();
  const entityOf = (ad: RefAd) => ({ ad_account: ad.account, campaign: ad.campaign, ad_group: ad.adGroup, ad: ad.id })[q.level];
  const row = (ts: number, ad: RefAd, seg: string) => {
    const key = `${bucketLabel(ts, q.granularity, q.timezone)}|${entityOf(ad)}|${seg}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { imp: 0, clk: 0, spendMicros: 0, convClick: 0, convView: 0, salesMicros: 0, hasSales: false }));
    return r;
  };
  const inRange = (ts: number) => ts >= q.startMs && ts < q.endMs;
  for (const e of events) {
    if (e.type === 'conversion' || !inRange(e.ts)) continue;
    const ad = ads.get(e.ad ?? '');
    if (!ad) continue;
    const r = row(e.ts, ad, segmentKey(e, q.segment));
    if (e.type === 'impression') r.imp++;
    else r.clk++;
    r.spendMicros += e.cost ?? 0;
  }
  if (q.segment === 'platform') return rows;
  for (const { conv, a, ad, at } of attributedConversions(events, ads, q)) {
    const r = row(at, ad, segmentKey(a.touch, q.segment));
    const goal = (q.goals.get(ad.campaign) ?? []).includes(conv.event_name ?? '');
    if (goal && a.kind === 'click') r.convClick++;
    if (goal && a.kind === 'view') r.convView++;
    if (conv.event_name === 'order_created' && conv.value !== undefined) {
      r.salesMicros += Math.round(conv.value * 1_000_000);
      r.hasSales = true;
    }
  }
  return rows;
}

/**
 * Conversion insights (spec: Conversion insights) from raw events: every
 * conversion attributed afresh, placed by the time basis in a local day of
 * the account timezone, keyed by date, entity and breakdown value.
 */
export interface RefGoalSetting {
  id: string;
  /** The event the setting names (a standard event type or a custom name). */
  event: string;
}

export interface RefConversionQuery extends Pick<RefQuery, 'timezone' | 'startMs' | 'endMs' | 'clickDays' | 'viewDays' | 'basis'> {
  accountId: string;
  level: 'campaign' | 'ad_group' | 'ad';
  groupByEntity: boolean;
  /** Requested entities at the level, or null for the whole account. */
  entityIds: readonly string[] | null;
  breakdown: 'country' | 'device' | null;
  granularity: 'daily' | 'none';
  /** Campaign id -> its conversion event settings. */
  goalSettings: ReadonlyMap<string, readonly RefGoalSetting[]>;
  /** Selected event names for the details, or null for all. */
  eventNames: readonly string[] | null;
}

export interface RefConversionEvent {
  n: number;
  click: number;
  view: number;
  /** Sum of values in cents (the tests use whole cents), and how many events had one. */
  valueCents: number;
  valueCount: number;
  /** Setting id -> goal conversions through that setting. */
  settings: Map<string, { click: number; view: number }>;
}

export interface RefConversionRow {
  convClick: number;
  convView: number;
  salesCents: number;
  hasSales: boolean;
  /** Selected events only. */
  events: Map<string, RefConversionEvent>;
}

/** Rows keyed `date|entity|breakdown` (`all` for the date without buckets, `` for no breakdown value), before the zero-row and keep rules. */
export function referenceConversionRows(events: readonly RefEvent[], ads: ReadonlyMap<string, RefAd>, q: RefConversionQuery): Map<string, RefConversionRow> {
  const rows = new Map<string, RefConversionRow>();
  const levelId = (ad: RefAd) => ({ campaign: ad.campaign, ad_group: ad.adGroup, ad: ad.id })[q.level];
  for (const { conv, a, ad, at } of attributedConversions(events, ads, q)) {
    if (q.entityIds !== null && !q.entityIds.includes(levelId(ad))) continue;
    const date = q.granularity === 'none' ? 'all' : bucketLabel(at, 'daily', q.timezone);
    const entity = q.groupByEntity ? levelId(ad) : q.accountId;
    const seg = q.breakdown === null ? '' : (a.touch[q.breakdown] ?? '');
    const key = `${date}|${entity}|${seg}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { convClick: 0, convView: 0, salesCents: 0, hasSales: false, events: new Map() }));
    const name = conv.event_name ?? '';
    const settings = (q.goalSettings.get(ad.campaign) ?? []).filter((s) => s.event === name);
    if (settings.length > 0) {
      if (a.kind === 'click') row.convClick++;
      else row.convView++;
    }
    if (name === 'order_created' && conv.value !== undefined) {
      row.salesCents += Math.round(conv.value * 100);
      row.hasSales = true;
    }
    if (q.eventNames !== null && !q.eventNames.includes(name)) continue;
    let ev = row.events.get(name);
    if (!ev) row.events.set(name, (ev = { n: 0, click: 0, view: 0, valueCents: 0, valueCount: 0, settings: new Map() }));
    ev.n++;
    if (a.kind === 'click') ev.click++;
    else ev.view++;
    if (conv.value !== undefined) {
      ev.valueCents += Math.round(conv.value * 100);
      ev.valueCount++;
    }
    for (const s of settings) {
      const b = ev.settings.get(s.id) ?? { click: 0, view: 0 };
      if (a.kind === 'click') b.click++;
      else b.view++;
      ev.settings.set(s.id, b);
    }
  }
  return rows;
}

/** Cents as the API's exact decimal text: 1234 -> "12.34", 1200 -> "12", 5 -> "0.05". */
export function centsText(cents: number): string {
  const whole = Math.floor(cents / 100);
  const frac = String(cents % 100).padStart(2, '0').replace(/0+$/, '');
  return frac === '' ? String(whole) : `${whole}.${frac}`;
}

/** A generated event as a line of an NDJSON event file (shared/EVENTS.md fields; values in USD). */
export function refEventLine(e: RefEvent, accountId: string): string {
  return JSON.stringify({
    event_id: e.event_id,
    type: e.type,
    timestamp: e.ts,
    user_id: e.user,
    ad_id: e.ad,
    ad_account_id: e.type === 'conversion' ? accountId : undefined,
    country: e.country,
    device: e.device,
    platform: e.platform,
    product_feed_id: e.feed,
    product_item_id: e.item,
    cost_micros: e.cost,
    event_name: e.event_name,
    value: e.value === undefined ? undefined : e.value.toFixed(2),
    currency: e.value === undefined ? undefined : 'USD',
  });
}
