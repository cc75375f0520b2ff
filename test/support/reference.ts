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
  for (const conv of events) {
    if (conv.type !== 'conversion') continue;
    const a = attributeConversion(events, conv, q.clickDays, q.viewDays);
    if (a === null) continue;
    const ad = ads.get(a.touch.ad ?? '');
    if (!ad) continue;
    const at = q.basis === 'ad_event_time' ? a.touch.ts : conv.ts;
    if (!inRange(at)) continue;
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
