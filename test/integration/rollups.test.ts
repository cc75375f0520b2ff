import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { loadEventFile, type LoadSummary } from '../../src/ingest/load-events.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * 15-minute rollups against a computation in the test from the generated
 * events, and the same tables whatever order and splitting the events came in.
 */
const NOW = Date.UTC(2026, 10, 22, 12);
const BUCKET_MS = 900_000;
const COUNTRIES = ['US', 'DE', 'IN', undefined];
const DEVICES = ['mobile', 'desktop', undefined];

interface World {
  t: TestApp;
  ads: string[];
}
const worlds: World[] = [];

async function world(): Promise<World> {
  const t = await startTestApp({ clock: new ManualClock(NOW) });
  const acct = await makeAccount(t, { timezone: 'Asia/Kathmandu' });
  const post = async (url: string, payload: object) => (await t.app.inject({ method: 'POST', url, headers: bearer(acct.key), payload })).json().id as string;
  const campaign = await post('/v1/campaigns', { name: 'Rollups', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
  const group = await post('/v1/ad_groups', { campaign_id: campaign, name: 'Group', bidding_config: { max_bid_micros: 1 } });
  const file = await insertFile(t.store, acct.accountId, null);
  const ads: string[] = [];
  for (let i = 0; i < 4; i++) ads.push(await post('/v1/ads', { ad_group_id: group, name: `Ad ${i}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } }));
  return { t, ads };
}

// Ads are created with random ids per world; events name ads by index and are mapped per world.
const events = Array.from({ length: 4000 }, (_, i) => ({
  event_id: `r${i}`,
  type: i % 7 === 0 ? 'click' : 'impression',
  timestamp: NOW - ((i * 104_729) % (3 * 86_400_000)),
  adIndex: (i * 31) % 4,
  user_id: `u${i % 97}`,
  country: COUNTRIES[i % 4],
  device: DEVICES[i % 3],
  cost_micros: (i * 37) % 5000,
}));

function write(w: World, name: string, rows: typeof events): string {
  const path = join(w.t.dataDir, name);
  writeFileSync(
    path,
    rows
      .map(({ adIndex, ...e }) => JSON.stringify({ ...e, ad_id: w.ads[adIndex] }))
      .join('\n') + '\n',
  );
  return path;
}
const load = (w: World, path: string) => loadEventFile(w.t, { runId: 'r', path, format: 'ndjson', source: 'test', scopeAccountId: null });

class Crash extends Error {}
/** What the loads of the chunked world reported (their sums are compared with one undivided load's). */
const chunked: { summaries: LoadSummary[]; committed: number } = { summaries: [], committed: 0 };

beforeAll(async () => {
  worlds.push(await world(), await world(), await world());
  const [one, two, three] = worlds as [World, World, World];
  chunked.summaries.push(await load(one, write(one, 'all.ndjson', events)));
  // The second world: reversed, split in three overlapping parts.
  const rev = [...events].reverse();
  await load(two, write(two, 'a.ndjson', rev.slice(0, 1500)));
  await load(two, write(two, 'b.ndjson', rev.slice(1000, 3000)));
  await load(two, write(two, 'c.ndjson', rev.slice(2500)));
  // The third: the whole file with its first 1,000 rows repeated at the end, in chunks of 333 lines;
  // the load stops after its third chunk committed (as a crash would), and a second attempt goes on from there.
  const path = write(three, 'chunked.ndjson', [...events, ...events.slice(0, 1000)]);
  let progress: { linesDone: number; summary: LoadSummary } | undefined;
  const first = loadEventFile(
    three.t,
    { runId: 'r', path, format: 'ndjson', source: 'test', scopeAccountId: null },
    {
      chunkLines: 333,
      beforeCommit: async (_tx, summary, p) => {
        if (chunked.committed === 3) throw new Crash();
        chunked.committed++;
        progress = { linesDone: p.linesDone, summary };
      },
    },
  );
  await expect(first).rejects.toBeInstanceOf(Crash);
  if (progress === undefined) throw new Error('no chunk committed');
  chunked.summaries.push(await loadEventFile(three.t, { runId: 'r', path, format: 'ndjson', source: 'test', scopeAccountId: null }, { chunkLines: 333, resume: progress }));
});
afterAll(async () => {
  for (const w of worlds) await w.t.close();
});

type Key = string;
function expected(segment: 'none' | 'country' | 'device'): Map<Key, [number, number, number]> {
  const out = new Map<Key, [number, number, number]>();
  for (const e of events) {
    const value = segment === 'none' ? '' : (segment === 'country' ? e.country : e.device) ?? 'null';
    const k = `${e.adIndex} ${Math.floor(e.timestamp / BUCKET_MS)} ${value}`;
    const cur = out.get(k) ?? [0, 0, 0];
    if (e.type === 'impression') cur[0]++;
    else cur[1]++;
    cur[2] += e.cost_micros;
    out.set(k, cur);
  }
  return out;
}

async function actual(w: World, segment: string): Promise<Map<Key, [number, number, number]>> {
  // A bucket's value is the sum of its rows (each load adds its own).
  const rows = await w.t.store.all(
    `SELECT ad_id, bucket, segment_value, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(spend_micros) AS spend_micros
     FROM rollup_15m WHERE segment = $s GROUP BY ALL`,
    { s: segment },
  );
  return new Map(
    rows.map((r) => [
      `${w.ads.indexOf(String(r['ad_id']))} ${r['bucket']} ${segment === 'none' ? '' : (r['segment_value'] ?? 'null')}`,
      [Number(r['impressions']), Number(r['clicks']), Number(r['spend_micros'])] as [number, number, number],
    ]),
  );
}

describe('15-minute rollups', () => {
  it.each(['none', 'country', 'device'] as const)('match an independent computation (segment %s)', async (segment) => {
    expect(await actual(worlds[0] as World, segment)).toEqual(expected(segment));
  });

  it('are the same whatever the order, splitting and repetition of the files', async () => {
    for (const segment of ['none', 'country', 'device', 'platform', 'product']) {
      expect(await actual(worlds[1] as World, segment)).toEqual(await actual(worlds[0] as World, segment));
    }
  });

  it('are the same when a file is loaded in chunks, one attempt stopping part-way and the next going on', async () => {
    const [one, , three] = worlds as [World, World, World];
    expect(chunked.committed).toBe(3);
    for (const segment of ['none', 'country', 'device', 'platform', 'product']) expect(await actual(three, segment)).toEqual(await actual(one, segment));
    // The counts are the undivided load's, plus the repeated rows as duplicates.
    expect(chunked.summaries[1]).toEqual({ ...chunked.summaries[0], rows_read: events.length + 1000, duplicates: 1000 });
    for (const w of [one, three]) expect(await w.t.store.get('SELECT count(*) AS n, count(DISTINCT event_id) AS ids FROM events')).toEqual({ n: events.length, ids: events.length });
    // Each committed chunk is a load of its own in the data's history: 5000 lines in chunks of 333 are 16, 3 of them from the first attempt.
    expect(await three.t.store.get('SELECT count(*) AS n FROM data_loads')).toEqual({ n: Math.ceil((events.length + 1000) / 333) });
  });
});
