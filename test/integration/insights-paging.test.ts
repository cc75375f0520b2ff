import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadEventFile } from '../../src/ingest/load-events.js';
import { compactStore } from '../../src/ingest/upkeep.js';
import { pageSnapshots } from '../../src/insights/page-snapshots.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { rng } from '../support/reference.js';

/**
 * Keyset pagination over random data and random sorts: walking `after` to the
 * end, and `before` back from the end, visits every row of the unpaginated
 * result exactly once and in order, also when a load commits between pages
 * (a cursor reads the data as of its first page). And totals add up: ad rows
 * to ad group, campaign and account rows; segment rows to unsegmented rows;
 * hours to days to months, in exact integer micros and counts.
 */
const NOW = Date.UTC(2026, 5, 30, 12);
const DAY = 86_400_000;
let t: TestApp;
let key: string;
let ads: string[] = [];
let loads = 0;

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  let accountId: string;
  ({ key, accountId } = await makeAccount(t, { timezone: 'Asia/Kolkata' }));
  const post = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers: bearer(key), payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id as string;
  };
  const file = await insertFile(t.store, accountId, null);
  for (const c of ['Camp1', 'Camp2']) {
    const campaign = await post('/v1/campaigns', { name: c, status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
    for (const g of ['Grp1', 'Grp2']) {
      const group = await post('/v1/ad_groups', { campaign_id: campaign, name: `${c}${g}`, bidding_config: { max_bid_micros: 1 } });
      for (const a of ['A', 'B', 'C']) {
        ads.push(await post('/v1/ads', { ad_group_id: group, name: `${c}${g}${a}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } }));
      }
    }
  }
});
afterAll(() => t.close());

async function load(n: number, seed: number): Promise<void> {
  loads++;
  const lines: string[] = [];
  const rand = rng(seed);
  for (let i = 0; i < n; i++) {
    const h = Math.floor(rand() * 2 ** 32);
    lines.push(
      JSON.stringify({
        event_id: `p${loads}-${i}`,
        type: h % 9 === 0 ? 'click' : 'impression',
        timestamp: NOW - 20 * DAY + (h % (19 * DAY)),
        ad_id: ads[h % ads.length],
        user_id: `u${h % 50}`,
        country: ['US', 'IN', 'DE'][h % 3],
        device: ['mobile', 'desktop'][h % 2],
        cost_micros: h % 3000,
      }),
    );
  }
  const path = join(t.dataDir, `p${loads}.ndjson`);
  writeFileSync(path, lines.join('\n') + '\n');
  const loaded = await loadEventFile(t, { runId: `p${loads}`, path, format: 'ndjson', source: 'test', scopeAccountId: null });
  expect(loaded.stored).toBe(n);
}

type Row = Record<string, unknown> & { id: string };
const RANGE = JSON.stringify({ type: 'date_range', since: '2026-06-12', until: '2026-06-28' });

async function page(q: Record<string, string | string[]>): Promise<{ data: Row[]; has_more: boolean; first_id: string | null; last_id: string | null }> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const x of [v].flat()) qs.append(k, x);
  const res = await t.app.inject({ url: `/v1/ad_account/insights?${qs}`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const strip = (r: Row) => {
  const { id, ...rest } = r;
  return { key: id.slice(0, id.indexOf(':cursor=')), ...rest };
};

describe('pagination', () => {
  it('pages concatenate to the unpaginated result, both ways, with loads between pages', async () => {
    await load(3000, 1);
    const sortable = ['impressions', 'clicks', 'spend', 'ctr', 'cpm', 'ad.id', 'ad.name', 'campaign.name'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('daily', 'none', 'monthly'),
        fc.constantFrom(null, 'country', 'device'),
        fc.array(fc.record({ field: fc.constantFrom(...sortable), direction: fc.constantFrom('asc', 'desc') }), { maxLength: 2 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        // Cursor pages read the first page's snapshot, or (snapshots forgotten) run the full query: both must agree.
        fc.boolean(),
        async (granularity, segment, sort, limit, loadBetween, forget) => {
          const next = async (q2: Record<string, string | string[]>) => {
            if (forget) await pageSnapshots(t.store).clear();
            return page(q2);
          };
          const q: Record<string, string | string[]> = {
            aggregation_level: 'ad',
            time_granularity: granularity,
            time_ranges: [RANGE],
            fields: ['ad.id', 'impressions', 'clicks', 'spend', 'ctr'],
            sort: sort.map((s) => JSON.stringify(s)),
            ...(segment === null ? {} : { segments: [segment] }),
          };
          const all = await page({ ...q, limit: '2000' });
          expect(all.has_more).toBe(false);
          const forward: Row[] = [];
          let p = await page({ ...q, limit: String(limit) });
          forward.push(...p.data);
          let pages = 0;
          while (p.has_more) {
            if (loadBetween && pages++ === 0) await load(200, forward.length + limit);
            p = await next({ ...q, limit: String(limit), after: p.last_id as string });
            forward.push(...p.data);
          }
          expect(forward.map(strip)).toEqual(all.data.map(strip));
          if (forward.length === 0) return;
          // And back: from the last row, `before` pages walk to the first.
          const backward: Row[] = [];
          let b = await next({ ...q, limit: String(limit), before: forward[forward.length - 1]?.id as string });
          backward.unshift(...b.data);
          while (b.has_more) {
            b = await next({ ...q, limit: String(limit), before: b.first_id as string });
            backward.unshift(...b.data);
          }
          expect(backward.map(strip)).toEqual(all.data.slice(0, -1).map(strip));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('refuses a cursor from another query', async () => {
    const p = await page({ aggregation_level: 'ad', time_ranges: [RANGE], limit: '2' });
    const res = await t.app.inject({ url: `/v1/ad_account/insights?aggregation_level=campaign&limit=2&after=${encodeURIComponent(p.last_id as string)}&time_ranges=${encodeURIComponent(RANGE)}`, headers: bearer(key) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ param: 'after', code: 'invalid_value' });
  });
});

describe('compaction', () => {
  it('keeps every number, and refuses cursors made before the history it merged', async () => {
    const q = { aggregation_level: 'ad', time_ranges: [RANGE], fields: ['ad.id', 'impressions', 'clicks', 'spend'], segments: ['country'] };
    const first = await page({ ...q, limit: '5' });
    await load(300, 99);
    const before = await page({ ...q, limit: '2000' });
    t.clock.advance(2 * DAY);
    const done = await compactStore(t);
    expect(done.merged).toBeGreaterThan(0);
    expect((await page({ ...q, limit: '2000' })).data.map(strip)).toEqual(before.data.map(strip));
    const res = await t.app.inject({ url: `/v1/ad_account/insights?${new URLSearchParams([...Object.entries(q).flatMap(([k, v]) => [v].flat().map((x): [string, string] => [k, x])), ['after', first.last_id as string]])}`, headers: bearer(key) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ param: 'after', code: 'invalid_value' });
  });
});

describe('totals', () => {
  const sum = (rows: Row[], f: string) => rows.reduce((n, r) => n + Math.round(Number(r[f]) * (f === 'spend' ? 1e6 : 1)), 0);
  const total = async (q: Record<string, string | string[]>) => {
    const rows: Row[] = [];
    let p = await page({ time_ranges: [RANGE], fields: ['impressions', 'clicks', 'spend'], limit: '2000', ...q });
    rows.push(...p.data);
    while (p.has_more) {
      p = await page({ time_ranges: [RANGE], fields: ['impressions', 'clicks', 'spend'], limit: '2000', ...q, after: p.last_id as string });
      rows.push(...p.data);
    }
    return { impressions: sum(rows, 'impressions'), clicks: sum(rows, 'clicks'), spend: sum(rows, 'spend') };
  };

  it('add up across levels, segments and granularities, exactly', async () => {
    const base = await total({ aggregation_level: 'ad_account', time_granularity: 'none' });
    expect(base.impressions).toBeGreaterThan(1000);
    for (const level of ['campaign', 'ad_group', 'ad']) expect(await total({ aggregation_level: level, time_granularity: 'none' })).toEqual(base);
    for (const segment of ['country', 'device', 'platform']) expect(await total({ segments: [segment], time_granularity: 'none' })).toEqual(base);
    for (const granularity of ['hourly', 'daily', 'monthly']) expect(await total({ time_granularity: granularity, aggregation_level: 'ad' })).toEqual(base);
  });
});
