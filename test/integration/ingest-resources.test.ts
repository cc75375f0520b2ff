import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { isResourceError, processRun } from '../../src/ingest/ingest-runs.js';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * A load that fails for want of memory is the machine's fault, not the
 * file's: the run must stay open (the job retries it, the reconciler queues
 * it again) and load every event once memory is there, never end as failed.
 * The memory shortage here is real: DuckDB's own limit, lowered for a while.
 */
const NOW = Date.UTC(2026, 10, 22, 12);
let t: TestApp;
let acct: { accountId: string; key: string };
let ads: string[];

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  acct = await makeAccount(t);
  const post = async (url: string, payload: object) => (await t.app.inject({ method: 'POST', url, headers: bearer(acct.key), payload })).json().id as string;
  const campaign = await post('/v1/campaigns', { name: 'Memory', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
  const group = await post('/v1/ad_groups', { campaign_id: campaign, name: 'Group', bidding_config: { max_bid_micros: 1 } });
  const file = await insertFile(t.store, acct.accountId, null);
  ads = [];
  for (let i = 0; i < 3; i++) ads.push(await post('/v1/ads', { ad_group_id: group, name: `Ad ${i}`, creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } }));
});
afterAll(() => t.close());

describe('a load that runs out of memory', () => {
  it('leaves the run open, then stores every event once memory is back', async () => {
    const events = Array.from({ length: 10_000 }, (_, i) => ({
      event_id: `mem-${i}`,
      type: i % 10 === 0 ? 'click' : 'impression',
      timestamp: NOW - 3_600_000 - i * 1000,
      ad_id: ads[i % 3],
      cost_micros: 1000 + i,
      country: ['US', 'DE', 'IN'][i % 3],
      user_id: `u${i % 40}`,
    }));
    const body = events.map((e) => JSON.stringify(e)).join('\n');
    const res = await t.app.inject({ method: 'POST', url: '/v1/events', headers: { ...bearer(acct.key), 'content-type': 'application/x-ndjson' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    const runId = res.json().id as string;

    const limit = String((await t.store.get("SELECT current_setting('memory_limit') AS m"))?.['m']);
    // Just above what the store holds now: room to work in, but not for a load.
    const used = Number((await t.store.get('SELECT sum(memory_usage_bytes) AS b FROM duckdb_memory()'))?.['b']);
    await t.store.run(`SET memory_limit = '${Math.ceil(used / 1024) + 2048}KB'`);
    let failure: unknown;
    try {
      await processRun(t, runId);
    } catch (err) {
      failure = err;
    } finally {
      await t.store.run(`SET memory_limit = '${limit}'`);
    }
    expect(String(failure)).toMatch(/Out of Memory/);
    expect(isResourceError(failure)).toBe(true);
    const open = await t.store.get('SELECT status, error FROM ingest_runs WHERE id = $id', { id: runId });
    expect(open).toEqual({ status: 'running', error: null });
    expect(await t.store.get("SELECT count(*) AS n FROM events WHERE event_id LIKE 'mem-%'")).toEqual({ n: 0 });

    expect(await processRun(t, runId)).toBe('succeeded');
    const run = (await t.app.inject({ url: `/v1/ingest_runs/${runId}`, headers: bearer(acct.key) })).json();
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 10_000, stored: 10_000, duplicates: 0, quarantined: 0 });
    const stored = await t.store.get(
      "SELECT count(*) AS n, count(*) FILTER (WHERE type = 'click') AS clicks, sum(cost_micros) AS spend FROM events WHERE event_id LIKE 'mem-%'",
    );
    expect(stored).toEqual({ n: 10_000, clicks: 1000, spend: events.reduce((s, e) => s + e.cost_micros, 0) });
    const rolled = await t.store.get("SELECT sum(impressions) AS imp, sum(clicks) AS clk FROM rollup_15m WHERE ad_account_id = $a AND segment = 'none'", { a: acct.accountId });
    expect(rolled).toEqual({ imp: 9000, clk: 1000 });
  });

  it('tells resource failures from bad input', () => {
    expect(isResourceError(new Error('Out of Memory Error: failed to pin block of size 256.0 KiB (953.4 MiB/953.6 MiB used)'))).toBe(true);
    expect(isResourceError(new Error('IO Error: Could not write file "x.tmp": No space left on device'))).toBe(true);
    expect(isResourceError(new Error('Invalid Input Error: No magic bytes found at end of file "bad.parquet"'))).toBe(false);
    expect(isResourceError(new Error('Conversion Error: Could not convert string to INT64'))).toBe(false);
  });
});
