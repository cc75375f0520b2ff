import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobSystem } from '../../jobs/job-system.js';
import { QUEUE } from '../../jobs/queue-names.js';
import { ManualClock } from '../../src/clock.js';
import { processRun } from '../../src/ingest/ingest-runs.js';
import { applyRetention, batchDir, compactStore, ORPHAN_BATCH_GRACE_MS, type UpkeepDeps } from '../../src/ingest/upkeep.js';
import { bearer, deleteRedisPrefix, makeAccount, quietLog, redisUrl, uniquePrefix } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** Retention of batch files and quarantined rows, compaction, and the schedulers that run them. */
const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;
let t: TestApp;
let clock: ManualClock;
let upkeep: UpkeepDeps;
let key: string;

beforeAll(async () => {
  clock = new ManualClock(NOW);
  t = await startTestApp({ clock });
  key = (await makeAccount(t)).key;
  upkeep = { store: t.store, clock, dataDir: t.dataDir, quarantineRetentionDays: 90, failedBatchRetentionDays: 7 };
});
afterAll(() => t.close());

const conversion = (id: string) => ({ event_id: id, type: 'conversion', timestamp: NOW - 60_000, user_id: 'u1', event_name: 'lead_created' });

async function postBatch(events: unknown[]): Promise<{ id: string; file: string }> {
  const before = new Set(existsSync(batchDir(t.dataDir)) ? readdirSync(batchDir(t.dataDir)) : []);
  const res = await t.app.inject({ method: 'POST', url: '/v1/events', headers: bearer(key), payload: { events } });
  expect(res.statusCode, res.body).toBe(202);
  const file = readdirSync(batchDir(t.dataDir)).find((f) => !before.has(f));
  return { id: res.json().id as string, file: join(batchDir(t.dataDir), file as string) };
}

const quarantined = async (runId: string) =>
  (await t.app.inject({ url: `/v1/ingest_runs/${runId}/quarantine`, headers: bearer(key) })).json().data as unknown[];

describe('retention', () => {
  it('removes batches of succeeded runs at once, of failed runs after their retention, and orphans after an hour', async () => {
    const ok = await postBatch([conversion('r1'), conversion('r2'), 'not an event']);
    const failed = await postBatch([conversion('r3')]);
    const queued = await postBatch([conversion('r4')]);
    expect(await processRun({ store: t.store, clock }, ok.id)).toBe('succeeded');
    // A run that ended failed (its retries exhausted).
    await t.store.run(`UPDATE ingest_runs SET status = 'failed', error = 'gave up', finished_at_ms = $now WHERE id = $id`, { id: failed.id, now: NOW });
    const oldOrphan = join(batchDir(t.dataDir), 'batch-1-old.ndjson');
    const newOrphan = join(batchDir(t.dataDir), 'batch-2-new.ndjson');
    for (const f of [oldOrphan, newOrphan]) writeFileSync(f, '{}\n');
    const age = (NOW - ORPHAN_BATCH_GRACE_MS - 60_000) / 1000;
    utimesSync(oldOrphan, age, age);
    utimesSync(newOrphan, NOW / 1000, NOW / 1000);

    expect(await applyRetention(upkeep)).toEqual({ batches_removed: 2, quarantine_rows_removed: 0 });
    expect([ok.file, oldOrphan].map(existsSync)).toEqual([false, false]);
    // The failed run's batch is kept for diagnosis; a queued run's batch is its only copy.
    expect([failed.file, queued.file, newOrphan].map(existsSync)).toEqual([true, true, true]);
    // The succeeded run's data and report are untouched.
    const run = (await t.app.inject({ url: `/v1/ingest_runs/${ok.id}`, headers: bearer(key) })).json();
    expect(run).toMatchObject({ status: 'succeeded', stored: 2, quarantined: 1 });
    expect(await quarantined(ok.id)).toHaveLength(1);

    clock.advance(7 * DAY + 60_000);
    expect((await applyRetention(upkeep)).batches_removed).toBe(2); // the failed run's batch, and the orphan now old
    expect([failed.file, queued.file, newOrphan].map(existsSync)).toEqual([false, true, false]);
    // The queued run still loads from its batch.
    expect(await processRun({ store: t.store, clock }, queued.id)).toBe('succeeded');
  });

  it('deletes quarantined rows after their retention, keeping the run counts', async () => {
    const run = await postBatch([conversion('q1'), 'bad', 'worse']);
    await processRun({ store: t.store, clock }, run.id);
    expect(await quarantined(run.id)).toHaveLength(2);
    clock.advance(89 * DAY);
    expect((await applyRetention(upkeep)).quarantine_rows_removed).toBe(1); // the first test's run, finished 96 days ago
    expect(await quarantined(run.id)).toHaveLength(2);
    clock.advance(2 * DAY);
    expect((await applyRetention(upkeep)).quarantine_rows_removed).toBe(2);
    expect(await quarantined(run.id)).toHaveLength(0);
    const report = (await t.app.inject({ url: `/v1/ingest_runs/${run.id}`, headers: bearer(key) })).json();
    expect(report).toMatchObject({ stored: 1, quarantined: 2, quarantined_by_reason: { invalid_json: 2 } });
  });
});

describe('compaction', () => {
  it('merges rollup rows of loads older than a day, keeping every sum', async () => {
    const sums = `SELECT ad_id, bucket, segment, segment_value, sum(impressions) AS i, sum(spend_micros) AS s FROM rollup_15m GROUP BY ALL ORDER BY ALL`;
    const events = 'SELECT count(*) AS n, sum(hash(event_id)) AS h FROM events';
    const before = { sums: await t.store.all(sums), events: await t.store.all(events), rows: await t.store.get('SELECT count(*) AS n FROM rollup_15m') };
    // Nothing is old enough yet: nothing merges.
    clock.set(NOW);
    expect((await compactStore(upkeep)).merged).toBe(0);
    clock.advance(200 * DAY);
    const done = await compactStore(upkeep);
    expect(done.horizon).toBeGreaterThan(0);
    expect(await t.store.all(sums)).toEqual(before.sums);
    expect(await t.store.all(events)).toEqual(before.events);
    expect(Number((await t.store.get('SELECT count(*) AS n FROM rollup_15m'))?.['n'])).toBeLessThanOrEqual(Number(before.rows?.['n']));
    expect(await t.store.get('SELECT count(*) AS n FROM attributions WHERE valid_to IS NOT NULL')).toEqual({ n: 0 });
  });
});

describe('maintenance schedulers', () => {
  it('registers retention and compaction beside the reconcilers', async () => {
    const prefix = uniquePrefix();
    const jobs = await startJobSystem({ redisUrl: redisUrl(), prefix, store: t.store, clock, log: quietLog, dataDir: t.dataDir, audienceMinSize: 1, reviewDelayMs: 100 });
    try {
      const schedulers = await jobs.queue(QUEUE.maintenance).getJobSchedulers();
      const every = Object.fromEntries(schedulers.map((s) => [s.key, Number(s.every)]));
      expect(every).toMatchObject({ 'ingest-retention': 600_000, 'compact-store': 1_800_000, 'reconcile-ingest-runs': 60_000 });
    } finally {
      await jobs.close(5000);
      await deleteRedisPrefix(redisUrl(), prefix);
    }
  });
});
