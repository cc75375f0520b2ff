import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { processRun } from '../../src/ingest/ingest-runs.js';
import { compactStore } from '../../src/ingest/upkeep.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Compaction rewrites each slice of a rollup that holds rows of loads not yet
 * compacted: one row per key with the same sums, written segment by segment
 * in campaign, ad group and ad order, so a report on a few campaigns or one
 * ad group reads few row groups. Slices without new rows are left as they are.
 */
const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;
const Q = 900_000;
const SLICE: Record<string, number> = { rollup_15m: 7 * 96, rollup_1d: 30 * 96, rollup_1mo: 92 * 96 };
const TABLES = Object.keys(SLICE);
const ORDER = 'ad_account_id, segment, campaign_id, ad_group_id, ad_id, segment_value, feed_value, item_value, bucket';

let t: TestApp;
let clock: ManualClock;
let key: string;
const ads: string[] = [];

beforeAll(async () => {
  clock = new ManualClock(NOW);
  t = await startTestApp({ clock });
  const acct = await makeAccount(t, { timezone: 'Asia/Kolkata' });
  key = acct.key;
  const post = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers: bearer(key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json().id as string;
  };
  const file = await insertFile(t.store, acct.accountId, null);
  for (let c = 0; c < 3; c++) {
    const campaign = await post('/v1/campaigns', { name: `Campaign ${c}`, status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
    for (let g = 0; g < 2; g++) {
      const group = await post('/v1/ad_groups', { campaign_id: campaign, name: `Group ${g}`, bidding_config: { max_bid_micros: 1 } });
      for (let a = 0; a < 2; a++) {
        ads.push(await post('/v1/ads', { ad_group_id: group, name: `Ad ${a}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } }));
      }
    }
  }
});
afterAll(() => t.close());

interface Ev {
  event_id: string;
  type: string;
  timestamp: number;
  ad_id: string;
  cost_micros: number;
  country: string;
  device: string;
  user_id: string;
}

/** `n` events over the `days` days before `end`, keyed by `tag`. */
function events(tag: string, n: number, end: number, days: number): Ev[] {
  return Array.from({ length: n }, (_, i) => ({
    event_id: `${tag}-${i}`,
    type: i % 9 === 0 ? 'click' : 'impression',
    timestamp: end - 60_000 - ((i * 7_919_993) % (days * DAY)),
    ad_id: ads[(i * 7) % ads.length] as string,
    cost_micros: 100 + ((i * 31) % 900),
    country: ['US', 'DE', 'IN', 'BR'][i % 4] as string,
    device: ['mobile', 'desktop'][i % 2] as string,
    user_id: `u${i % 50}`,
  }));
}

async function load(batch: Ev[]): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/events', headers: bearer(key), payload: { events: batch } });
  expect(res.statusCode, res.body).toBe(202);
  expect(await processRun(t, res.json().id as string)).toBe('succeeded');
  const run = (await t.app.inject({ url: `/v1/ingest_runs/${res.json().id}`, headers: bearer(key) })).json();
  expect(run).toMatchObject({ stored: batch.length, quarantined: 0 });
}

const sums = (table: string) =>
  t.store.all(`SELECT ad_id, bucket, segment, segment_value, sum(impressions) AS i, sum(clicks) AS c, sum(spend_micros) AS s FROM ${table} GROUP BY ALL ORDER BY ALL`);

/** The unsegmented 15-minute rollup summed per ad and bucket, shaped like `reference`. */
const NONE = `SELECT ad_id, bucket, sum(impressions) AS i, sum(clicks) AS c, sum(spend_micros) AS s FROM rollup_15m WHERE segment = 'none' GROUP BY ALL ORDER BY ad_id, bucket`;

/** Keys with more than one row in a rollup. */
const duplicateKeys = (table: string) =>
  t.store.get(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table} GROUP BY ad_account_id, bucket, ad_id, segment, segment_value, feed_value, item_value HAVING count(*) > 1)`);

/** Impressions, clicks and spend per ad and 15-minute bucket, from the events themselves. */
function reference(all: Ev[]): { ad_id: string; bucket: number; i: number; c: number; s: number }[] {
  const m = new Map<string, { ad_id: string; bucket: number; i: number; c: number; s: number }>();
  for (const e of all) {
    const bucket = Math.floor(e.timestamp / Q);
    const k = `${e.ad_id}|${bucket}`;
    const r = m.get(k) ?? { ad_id: e.ad_id, bucket, i: 0, c: 0, s: 0 };
    if (e.type === 'impression') r.i++;
    else r.c++;
    r.s += e.cost_micros;
    m.set(k, r);
  }
  return [...m.values()].sort((a, b) => (a.ad_id < b.ad_id ? -1 : a.ad_id > b.ad_id ? 1 : a.bucket - b.bucket));
}

/** Whether each slice's rows lie in the file in compaction's order (rowid follows the physical position). */
async function clustered(table: string): Promise<boolean> {
  const step = SLICE[table] as number;
  const row = await t.store.get(
    `SELECT bool_and(ok) AS ok FROM (SELECT bucket // ${step} AS k, list(rowid ORDER BY rowid) = list(rowid ORDER BY ${ORDER}) AS ok FROM ${table} GROUP BY 1)`,
  );
  return row?.['ok'] === true;
}

describe('compaction', () => {
  const loaded: Ev[] = [];

  it('rewrites every slice as one row per key in cluster order, keeping every sum', async () => {
    for (const [i, n] of [4000, 3000, 5000].entries()) {
      const batch = events(`b${i}`, n, NOW, 60);
      await load(batch);
      loaded.push(...batch);
      clock.advance(60_000);
    }
    const before = Object.fromEntries(await Promise.all(TABLES.map(async (tb) => [tb, await sums(tb)] as const)));
    expect(await t.store.all(NONE)).toEqual(reference(loaded));
    // Loads of several runs, each in bucket order: not clustered yet.
    expect(await clustered('rollup_15m')).toBe(false);

    clock.advance(2 * DAY);
    const done = await compactStore(t);
    expect(done.merged).toBeGreaterThan(0);
    for (const tb of TABLES) {
      expect(await sums(tb), tb).toEqual(before[tb]);
      const dup = await duplicateKeys(tb);
      expect(dup, tb).toEqual({ n: 0 });
      expect(await t.store.get(`SELECT count(DISTINCT load_seq) AS n, min(load_seq) AS seq FROM ${tb}`), tb).toEqual({ n: 1, seq: 0 });
      expect(await clustered(tb), tb).toBe(true);
    }
    expect(await t.store.all(NONE)).toEqual(reference(loaded));
    // Nothing new: nothing is rewritten.
    clock.advance(DAY);
    expect((await compactStore(t)).merged).toBe(0);
  });

  it('rewrites only the slices new loads reached', async () => {
    const rows = async () => Number((await t.store.get('SELECT count(*) AS n FROM rollup_15m'))?.['n']);
    const total = await rows();
    // The last two days only: one or two slices of each rollup.
    const batch = events('late', 2000, clock.nowMs() - 3 * DAY, 2);
    await load(batch);
    loaded.push(...batch);
    const touched = new Set(batch.map((e) => Math.floor(e.timestamp / Q / (7 * 96))));
    const inTouched = async () =>
      Number((await t.store.get(`SELECT count(*) AS n FROM rollup_15m WHERE bucket // ${7 * 96} IN (${[...touched].join(', ')})`))?.['n']);
    clock.advance(2 * DAY);
    const h = await compactStore(t);
    const slices15 = await inTouched();
    const dayKeys = [...new Set(batch.map((e) => Math.floor(e.timestamp / Q / (30 * 96))))];
    const days = Number((await t.store.get(`SELECT count(*) AS n FROM rollup_1d WHERE bucket // ${30 * 96} IN (${dayKeys.join(', ')})`))?.['n']);
    expect(slices15).toBeLessThan(total);
    expect(h.merged).toBeGreaterThanOrEqual(slices15 + days);
    for (const tb of TABLES) expect(await clustered(tb), tb).toBe(true);
    expect(await t.store.all(NONE)).toEqual(reference(loaded));
  });

  it('lets loads commit while it runs, and two runs may overlap', async () => {
    const old = events('old', 3000, clock.nowMs() - 3 * DAY, 40);
    await load(old);
    loaded.push(...old);
    clock.advance(2 * DAY);
    const during = events('during', 2000, clock.nowMs(), 20);
    const runs = await Promise.all([compactStore(t), load(during), compactStore(t)]);
    loaded.push(...during);
    expect(runs[0].merged + runs[2].merged).toBeGreaterThan(0);
    expect(await t.store.all(NONE)).toEqual(reference(loaded));
    // The load made during compaction is merged by the next one.
    clock.advance(2 * DAY);
    await compactStore(t);
    expect(await t.store.get('SELECT count(*) AS n FROM rollup_15m WHERE load_seq <> 0')).toEqual({ n: 0 });
    for (const tb of TABLES) expect(await clustered(tb), tb).toBe(true);
    expect(await t.store.all(NONE)).toEqual(reference(loaded));
  });

  it('finishes a compaction that stopped after recording its horizon', async () => {
    const batch = events('crash', 1500, clock.nowMs() - DAY, 1);
    await load(batch);
    loaded.push(...batch);
    clock.advance(2 * DAY);
    // A run that recorded its horizon, then died before any slice.
    const h = Number((await t.store.get('SELECT max(seq) AS h FROM data_loads'))?.['h']);
    await t.store.run('INSERT INTO data_compactions VALUES ($h, $now)', { h, now: clock.nowMs() });
    // Its slices hold the load's own rows beside merged ones, so they are rewritten.
    expect(Number((await t.store.get('SELECT count(*) AS n FROM rollup_15m WHERE load_seq = $h', { h }))?.['n'])).toBeGreaterThan(0);
    expect(await clustered('rollup_15m')).toBe(false);
    clock.advance(DAY);
    await compactStore(t);
    for (const tb of TABLES) {
      const dup = await duplicateKeys(tb);
      expect(dup, tb).toEqual({ n: 0 });
      expect(await clustered(tb), tb).toBe(true);
    }
    expect(await t.store.all(NONE)).toEqual(reference(loaded));
  });
});
