import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startJobSystem, type JobSystem } from '../../jobs/job-system.js';
import { ManualClock } from '../../src/clock.js';
import { processRun } from '../../src/ingest/ingest-runs.js';
import { bearer, deleteRedisPrefix, makeAccount, quietLog, redisUrl, uniquePrefix } from '../support/context.js';
import { sqlList } from '../../src/store/store.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

const NOW = Date.UTC(2026, 10, 22, 12);
let t: TestApp;
let a: { accountId: string; key: string; ad: string };
let b: { accountId: string; key: string; ad: string };

async function withAd(app: TestApp) {
  const acct = await makeAccount(app);
  const post = async (url: string, payload: object) => (await app.app.inject({ method: 'POST', url, headers: bearer(acct.key), payload })).json().id as string;
  const campaign = await post('/v1/campaigns', { name: 'Events', status: 'active', budget: { lifetime_spend_limit_micros: 1_000_000 } });
  const group = await post('/v1/ad_groups', { campaign_id: campaign, name: 'Group', bidding_config: { max_bid_micros: 1 } });
  const file = await insertFile(app.store, acct.accountId, null);
  const ad = await post('/v1/ads', { ad_group_id: group, name: 'Ad', creative: { type: 'chat_card', title: 'Title', target_url: 'https://x.example', file_id: file } });
  return { ...acct, ad };
}

beforeAll(async () => {
  t = await startTestApp({ clock: new ManualClock(NOW) });
  a = await withAd(t);
  b = await withAd(t);
});
afterAll(() => t.close());

const imp = (id: string, ad: string, extra: object = {}) => ({ event_id: id, type: 'impression', timestamp: NOW - 60_000, ad_id: ad, cost_micros: 1000, ...extra });
const postEvents = (key: string, payload: unknown, headers: Record<string, string> = {}, qs = '') =>
  t.app.inject({ method: 'POST', url: `/v1/events${qs}`, headers: { ...bearer(key), ...headers }, payload: payload as string });

describe('POST /v1/events', () => {
  it('records a run, and the run stores the batch for the key\'s account', async () => {
    const res = await postEvents(a.key, { events: [imp('h1', a.ad), imp('h2', a.ad), imp('h3', b.ad), 'not an object', imp('h1', a.ad)] });
    expect(res.statusCode, res.body).toBe(202);
    const run = res.json();
    expect(run).toMatchObject({ id: expect.stringMatching(/^irun_/), object: 'ingest_run', status: 'queued', origin: 'api', ad_account_id: a.accountId });
    expect(t.ingestQueued).toContain(run.id);
    expect(await processRun(t, run.id)).toBe('succeeded');
    const done = (await t.app.inject({ url: `/v1/ingest_runs/${run.id}`, headers: bearer(a.key) })).json();
    expect(done).toMatchObject({ status: 'succeeded', rows_read: 5, stored: 2, duplicates: 1, quarantined: 2, quarantined_by_reason: { unknown_ad: 1, invalid_json: 1 } });
    const q = (await t.app.inject({ url: `/v1/ingest_runs/${run.id}/quarantine`, headers: bearer(a.key) })).json();
    expect(q.data.map((r: { line_no: number; reason: string }) => [r.line_no, r.reason])).toEqual([
      [3, 'unknown_ad'],
      [4, 'invalid_json'],
    ]);
    // Processing again changes nothing.
    expect(await processRun(t, run.id)).toBe('succeeded');
    expect(await t.store.get("SELECT count(*) AS n FROM events WHERE event_id IN ('h1', 'h2')")).toEqual({ n: 2 });
    // Another account cannot see the run.
    expect((await t.app.inject({ url: `/v1/ingest_runs/${run.id}`, headers: bearer(b.key) })).statusCode).toBe(404);
  });

  it('takes NDJSON bodies', async () => {
    const body = [imp('n1', a.ad), imp('n2', a.ad)].map((e) => JSON.stringify(e)).join('\n') + '\n{broken\n';
    const res = await postEvents(a.key, body, { 'content-type': 'application/x-ndjson; charset=utf-8' });
    expect(res.statusCode, res.body).toBe(202);
    await processRun(t, res.json().id);
    expect((await t.app.inject({ url: `/v1/ingest_runs/${res.json().id}`, headers: bearer(a.key) })).json()).toMatchObject({ stored: 2, quarantined: 1 });
  });

  it('answers 415 for other body types, naming both it takes; NDJSON is for this endpoint only', async () => {
    const csv = await postEvents(a.key, 'event_id,type\nx,impression\n', { 'content-type': 'text/csv' });
    expect(csv.statusCode, csv.body).toBe(415);
    expect(csv.json().error).toMatchObject({ code: 'unsupported_media_type', message: 'Unsupported Content-Type text/csv; this endpoint takes application/json or application/x-ndjson.' });
    // Elsewhere an NDJSON body is refused as a type, not read as a string that then fails as "expected object".
    const other = await t.app.inject({ method: 'POST', url: '/v1/campaigns', headers: { ...bearer(a.key), 'content-type': 'application/x-ndjson' }, payload: '{"name":"x"}\n' });
    expect(other.statusCode, other.body).toBe(415);
    expect(other.json().error).toMatchObject({ code: 'unsupported_media_type', message: 'Unsupported Content-Type application/x-ndjson; this endpoint takes application/json.' });
  });

  it('takes a gzipped batch, as JSON or NDJSON', async () => {
    const json = await postEvents(a.key, gzipSync(JSON.stringify({ events: [imp('z1', a.ad), imp('z2', a.ad)] })), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    const lines = await postEvents(a.key, gzipSync([imp('z3', a.ad), imp('z1', a.ad)].map((e) => JSON.stringify(e)).join('\n')), {
      'content-type': 'application/x-ndjson',
      'content-encoding': 'gzip',
    });
    for (const res of [json, lines]) expect(res.statusCode, res.body).toBe(202);
    for (const res of [json, lines]) await processRun(t, res.json().id);
    expect((await t.app.inject({ url: `/v1/ingest_runs/${json.json().id}`, headers: bearer(a.key) })).json()).toMatchObject({ rows_read: 2, stored: 2 });
    expect((await t.app.inject({ url: `/v1/ingest_runs/${lines.json().id}`, headers: bearer(a.key) })).json()).toMatchObject({ rows_read: 2, stored: 1, duplicates: 1 });
  });

  it('Idempotency-Key: a retried batch gets the run it made; another batch or a check with the key is a 422', async () => {
    const key = { 'idempotency-key': 'batch-7', 'content-type': 'application/json' };
    const batch = JSON.stringify({ events: [imp('k1', a.ad), imp('k2', a.ad)] });
    const runCount = async () => Number((await t.store.get('SELECT count(*) AS n FROM ingest_runs WHERE ad_account_id = $a', { a: a.accountId }))?.['n']);
    const before = await runCount();
    const first = await postEvents(a.key, batch, key);
    const again = await postEvents(a.key, batch, key);
    expect(first.statusCode, first.body).toBe(202);
    expect(again.statusCode, again.body).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
    expect(await runCount()).toBe(before + 1);
    for (const res of [
      await postEvents(a.key, JSON.stringify({ events: [imp('k3', a.ad)] }), key),
      await postEvents(a.key, batch, key, '?validate_only=true'),
    ]) {
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    }
    // Keys are per account: another account's batch with the same key is its own.
    const other = await postEvents(b.key, JSON.stringify({ events: [imp('k1', b.ad)] }), key);
    expect(other.statusCode, other.body).toBe(202);
    expect(other.json().id).not.toBe(first.json().id);
  });

  it('GET /v1/ingest_runs lists the account\'s runs newest first, in pages, by status', async () => {
    const made: string[] = [];
    for (const id of ['l1', 'l2', 'l3']) {
      const res = await postEvents(b.key, JSON.stringify({ events: [imp(id, b.ad)] }), { 'content-type': 'application/json' });
      made.push(res.json().id);
    }
    await processRun(t, made[0] as string);
    const list = async (qs: string) => {
      const res = await t.app.inject({ url: `/v1/ingest_runs${qs}`, headers: bearer(b.key) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: { id: string; status: string; stored: number; files: unknown[] }[]; has_more: boolean; first_id: string | null; last_id: string | null };
    };
    const all = await list('?limit=100');
    // Every run of b's, and no run of a's; the newest first, each shaped as GET /v1/ingest_runs/{id} shows it.
    const ids = all.data.map((r) => r.id);
    expect(ids.slice(0, 3)).toEqual([...made].reverse());
    const owned = await t.store.all('SELECT id FROM ingest_runs WHERE ad_account_id = $b', { b: b.accountId });
    expect(new Set(ids)).toEqual(new Set(owned.map((r) => String(r['id']))));
    for (const id of made) expect(all.data.find((r) => r.id === id)).toEqual((await t.app.inject({ url: `/v1/ingest_runs/${id}`, headers: bearer(b.key) })).json());
    // Pages of one, forward and back, visit the same runs.
    const first = await list('?limit=1');
    const second = await list(`?limit=1&after=${first.last_id}`);
    expect([first.data[0]?.id, second.data[0]?.id]).toEqual(ids.slice(0, 2));
    expect((await list(`?limit=1&before=${second.first_id}`)).data.map((r) => r.id)).toEqual([ids[0]]);
    expect((await list('?limit=100&order=asc')).data.map((r) => r.id)).toEqual([...ids].reverse());
    const done = await list('?limit=100&status=succeeded');
    expect(done.data.map((r) => r.id)).toContain(made[0]);
    expect(done.data.every((r) => r.status === 'succeeded')).toBe(true);
    expect((await list('?limit=100&status=queued')).data.map((r) => r.id)).toEqual(expect.arrayContaining([made[1], made[2]]));
    const bad = await t.app.inject({ url: '/v1/ingest_runs?status=done', headers: bearer(b.key) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ param: 'status' });
    const foreign = await t.app.inject({ url: `/v1/ingest_runs?after=${made[0]}`, headers: bearer(a.key) });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error).toMatchObject({ param: 'after' });
  });

  it('validate_only reports without storing', async () => {
    const res = await postEvents(a.key, { events: [imp('v1', a.ad), imp('v2', b.ad)], validate_only: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      object: 'ingest_validation',
      rows_read: 2,
      stored: 1,
      duplicates: 0,
      quarantined: 1,
      quarantined_by_reason: { unknown_ad: 1 },
      quarantined_rows: [{ line_no: 2, reason: 'unknown_ad', detail: "ad_id names no ad of this run's account", raw: JSON.stringify(imp('v2', b.ad)) }],
    });
    expect(await t.store.get("SELECT count(*) AS n FROM events WHERE event_id = 'v1'")).toEqual({ n: 0 });
    expect(await t.store.get("SELECT count(*) AS n FROM event_quarantine WHERE run_id = 'validate_only'")).toEqual({ n: 0 });
  });

  it('validate_only names the rows it would quarantine, the first 100 by position', async () => {
    // Every seventh event lacks its ad, every eleventh (not seventh) is in the future; the rest are fine.
    const events = Array.from({ length: 1000 }, (_, i) => {
      if (i % 7 === 0) return { event_id: `q${i}`, type: 'click', timestamp: NOW - 60_000, user_id: 'u' };
      if (i % 11 === 0) return imp(`q${i}`, a.ad, { timestamp: NOW + 3_600_000 });
      return imp(`q${i}`, a.ad);
    });
    const issue = (i: number, reason: string, detail: string) => [{ line_no: i + 1, reason, detail, raw: JSON.stringify(events[i]) }];
    const expected = events.flatMap((_, i) =>
      i % 7 === 0 ? issue(i, 'missing_field', 'ad_id is required for impressions and clicks') : i % 11 === 0 ? issue(i, 'future_timestamp', 'timestamp is more than 10 minutes after the load') : [],
    );
    const res = await postEvents(a.key, { events, validate_only: true });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ rows_read: 1000, quarantined: expected.length, stored: 1000 - expected.length });
    expect(expected.length).toBeGreaterThan(100);
    expect(body.quarantined_rows).toEqual(expected.slice(0, 100));
    // NDJSON lines are numbered as sent, text that is not JSON included.
    const ndjson = `${JSON.stringify(imp('w1', a.ad))}\n{broken\n${JSON.stringify(imp('w2', b.ad))}\n`;
    const lines = await postEvents(a.key, ndjson, { 'content-type': 'application/x-ndjson' }, '?validate_only=true');
    expect(lines.json().quarantined_rows).toEqual([
      { line_no: 2, reason: 'invalid_json', detail: 'the line is not a JSON object', raw: '{broken' },
      { line_no: 3, reason: 'unknown_ad', detail: "ad_id names no ad of this run's account", raw: JSON.stringify(imp('w2', b.ad)) },
    ]);
  });

  it.each([
    [{}, 400, 'missing_required_parameter', 'events'],
    [{ events: 'x' }, 400, 'invalid_type', 'events'],
    [{ events: [] }, 400, 'invalid_value', 'events'],
    [{ events: [1], colour: 'red' }, 400, 'unknown_parameter', 'colour'],
    [{ events: [1], validate_only: 'yes' }, 400, 'invalid_type', 'validate_only'],
    [{ events: Array.from({ length: 10_001 }, () => ({})) }, 413, 'request_too_large', 'events'],
  ])('refuses %#', async (payload, status, code, param) => {
    const res = await postEvents(a.key, payload);
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toMatchObject({ code, param });
  });
});

/**
 * Small batches queued together are loaded as one (ADSVC_INGEST_BATCH_RUNS):
 * each run must come out exactly as if the runs were loaded one after
 * another in the order they were made. The expected counts, quarantined
 * lines and stored events are worked out here from the bodies sent.
 */
describe('queued API runs loaded together', () => {
  type Line = { text: string; kind: 'blank' | 'bad_json' | 'unknown_ad' | 'event'; id?: string };
  /** Batches with events repeated across and within them, bad rows and blank lines, from a seeded sequence. */
  function batches(ad: string, count: number, seed: number): Line[][] {
    let x = seed;
    const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    return Array.from({ length: count }, (_, b) =>
      Array.from({ length: 20 + b * 3 }, (_l, i): Line => {
        const r = next();
        const id = `bt${seed}_${Math.floor(next() * 60)}`;
        // The second batch begins with a blank line: lines are numbered as sent, blank ones too.
        if (r < 0.05 || (b === 1 && i === 0)) return { text: '', kind: 'blank' };
        if (r < 0.1) return { text: '{"event_id": broken', kind: 'bad_json' };
        if (r < 0.15) return { text: JSON.stringify(imp(id, 'ad_unknown')), kind: 'unknown_ad' };
        return { text: JSON.stringify(imp(id, ad, { timestamp: NOW - Math.floor(next() * 3_600_000) })), kind: 'event', id };
      }),
    );
  }
  /** What loading the batches one after another gives: per batch its counts and quarantined lines, and each stored event's batch. */
  function reference(sent: Line[][]) {
    const storedIn = new Map<string, number>();
    const runs = sent.map((lines, b) => {
      const out = { rows_read: 0, stored: 0, duplicates: 0, quarantined: 0, quarantined_by_reason: {} as Record<string, number>, lines: [] as [number, string][] };
      lines.forEach((l, i) => {
        if (l.kind === 'blank') return;
        out.rows_read++;
        if (l.kind === 'event') {
          if (storedIn.has(l.id as string)) out.duplicates++;
          else (out.stored++, storedIn.set(l.id as string, b));
          return;
        }
        const reason = l.kind === 'bad_json' ? 'invalid_json' : 'unknown_ad';
        out.quarantined++;
        out.quarantined_by_reason[reason] = (out.quarantined_by_reason[reason] ?? 0) + 1;
        out.lines.push([i + 1, reason]);
      });
      return out;
    });
    return { runs, storedIn };
  }
  async function post(key: string, lines: Line[]): Promise<string> {
    const res = await postEvents(key, lines.map((l) => l.text).join('\n'), { 'content-type': 'application/x-ndjson' });
    expect(res.statusCode, res.body).toBe(202);
    return res.json().id as string;
  }
  async function expectRuns(acct: { key: string; accountId: string }, ids: string[], sent: Line[][]) {
    const ref = reference(sent);
    for (const [b, id] of ids.entries()) {
      const run = (await t.app.inject({ url: `/v1/ingest_runs/${id}`, headers: bearer(acct.key) })).json();
      const { lines, ...counts } = ref.runs[b] as (typeof ref.runs)[number];
      expect(run, `batch ${b}`).toMatchObject({ status: 'succeeded', ...counts });
      expect(run.quarantined_by_reason).toEqual(counts.quarantined_by_reason);
      const q = (await t.app.inject({ url: `/v1/ingest_runs/${id}/quarantine`, headers: bearer(acct.key) })).json();
      expect(q.data.map((r: { line_no: number; reason: string }) => [r.line_no, r.reason]), `batch ${b}`).toEqual(lines);
    }
    const stored = await t.store.all('SELECT event_id, run_id FROM events WHERE ad_account_id = $a ORDER BY event_id', { a: acct.accountId });
    expect(stored).toEqual([...ref.storedIn].sort(([x], [y]) => (x < y ? -1 : 1)).map(([event_id, b]) => ({ event_id, run_id: ids[b] })));
    const spend = await t.store.get('SELECT sum(spent_micros)::BIGINT AS s FROM account_daily_spend WHERE ad_account_id = $a', { a: acct.accountId });
    expect(Number(spend?.['s'])).toBe(ref.storedIn.size * 1000);
  }

  it('each run has the counts, quarantined lines and stored events of a load of its own, in the order the runs were made', async () => {
    const acct = await withAd(t);
    const sent = batches(acct.ad, 7, 11);
    const ids: string[] = [];
    for (const lines of sent) ids.push(await post(acct.key, lines));
    // Another account's queued run is never in this account's batch.
    const other = await post(b.key, [{ text: JSON.stringify(imp('bt_other', b.ad)), kind: 'event', id: 'bt_other' }]);
    const batched = { ...t, ingestBatchRuns: 4 };
    // The third run's job comes first: the batch is the first four runs, in the order they were made.
    expect(await processRun(batched, ids[2] as string)).toBe('succeeded');
    const status = async (id: string) => (await t.app.inject({ url: `/v1/ingest_runs/${id}`, headers: bearer(id === other ? b.key : acct.key) })).json().status;
    expect(await Promise.all([...ids, other].map(status))).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'queued', 'queued', 'queued', 'queued']);
    // Their own jobs find them done; the next job takes the rest.
    expect(await processRun(batched, ids[0] as string)).toBe('succeeded');
    expect(await processRun(batched, ids[6] as string)).toBe('succeeded');
    expect(await status(ids[4] as string)).toBe('succeeded');
    expect(await status(other)).toBe('queued');
    await expectRuns(acct, ids, sent);
    // Two loads in all, each one transaction (one data version each).
    expect(await t.store.get('SELECT count(*)::INTEGER AS n FROM data_loads WHERE list_contains($ids, run_id)', { ids: sqlList(ids) })).toEqual({ n: 2 });
    expect(await processRun(batched, other)).toBe('succeeded');
  });

  it('a batch that cannot be read is loaded run by run, so only the unreadable run fails', async () => {
    const acct = await withAd(t);
    const sent = batches(acct.ad, 3, 12);
    const ids: string[] = [];
    for (const lines of sent) ids.push(await post(acct.key, lines));
    // The second run's stored body becomes bytes that are not UTF-8.
    const path = String((await t.store.get('SELECT path FROM ingest_run_files WHERE run_id = $r', { r: ids[1] as string }))?.['path']);
    writeFileSync(path, Buffer.from([0x7b, 0xff, 0xfe, 0x0a]));
    const batched = { ...t, ingestBatchRuns: 10 };
    expect(await processRun(batched, ids[0] as string)).toBe('succeeded');
    expect(await processRun(batched, ids[1] as string)).toBe('failed');
    expect(await processRun(batched, ids[2] as string)).toBe('succeeded');
    const failed = (await t.app.inject({ url: `/v1/ingest_runs/${ids[1]}`, headers: bearer(acct.key) })).json();
    expect(failed).toMatchObject({ status: 'failed', stored: 0, error: expect.stringMatching(/^request: /) });
    await expectRuns(acct, [ids[0], ids[2]] as string[], [sent[0], sent[2]] as Line[][]);
  });
});

describe('ingest jobs (real Redis)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn();
  });

  it('a worker processes the run the API recorded', async () => {
    const prefix = uniquePrefix();
    const clock = new ManualClock(NOW);
    let jobs: JobSystem | undefined;
    const app = await startTestApp({ clock, ingestJobs: { schedule: (id) => (jobs as JobSystem).ingestJobs.schedule(id) } });
    jobs = await startJobSystem({ redisUrl: redisUrl(), prefix, store: app.store, clock, log: quietLog, dataDir: app.dataDir, audienceMinSize: 1, reviewDelayMs: 100 });
    // Run last-in first-out: workers close, then the app and store, then the keys go.
    cleanups.push(() => deleteRedisPrefix(redisUrl(), prefix), () => app.close(), async () => void (await jobs?.close(5000)));
    const acct = await withAd(app);
    const res = await app.app.inject({ method: 'POST', url: '/v1/events', headers: bearer(acct.key), payload: { events: [imp('j1', acct.ad), imp('j2', acct.ad)] } });
    const id = res.json().id as string;
    const deadline = Date.now() + 15_000;
    let run = res.json();
    while (run.status !== 'succeeded' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      run = (await app.app.inject({ url: `/v1/ingest_runs/${id}`, headers: bearer(acct.key) })).json();
    }
    expect(run).toMatchObject({ status: 'succeeded', stored: 2 });
    expect(await app.store.get('SELECT spent_micros FROM account_daily_spend WHERE ad_account_id = $a', { a: acct.accountId })).toEqual({ spent_micros: 2000 });
  });

  it('the worker loads runs queued while it was down together, and each keeps its own counts', async () => {
    const prefix = uniquePrefix();
    const clock = new ManualClock(NOW);
    const app = await startTestApp({ clock });
    const acct = await withAd(app);
    const ids: string[] = [];
    // Five batches of 3 events, each sharing one event with the batch before it.
    for (let i = 0; i < 5; i++) {
      const events = [imp(`w${i}`, acct.ad), imp(`w${i}x`, acct.ad), imp(`w${i + 1}`, acct.ad)];
      ids.push((await app.app.inject({ method: 'POST', url: '/v1/events', headers: bearer(acct.key), payload: { events } })).json().id as string);
    }
    // Started now, the job system queues every waiting run at once.
    const jobs = await startJobSystem({ redisUrl: redisUrl(), prefix, store: app.store, clock, log: quietLog, dataDir: app.dataDir, audienceMinSize: 1, reviewDelayMs: 100 });
    cleanups.push(() => deleteRedisPrefix(redisUrl(), prefix), () => app.close(), async () => void (await jobs.close(5000)));
    const deadline = Date.now() + 15_000;
    const runs = async () => Promise.all(ids.map(async (id) => (await app.app.inject({ url: `/v1/ingest_runs/${id}`, headers: bearer(acct.key) })).json()));
    let seen = await runs();
    while (seen.some((r) => r.status !== 'succeeded') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await runs();
    }
    // The first run stores all three of its events; each later one finds its first event stored by the run before.
    expect(seen.map((r) => [r.status, r.stored, r.duplicates])).toEqual(ids.map((_, i) => ['succeeded', i === 0 ? 3 : 2, i === 0 ? 0 : 1]));
    // One load for all five: one data version.
    expect(await app.store.get('SELECT count(*)::INTEGER AS n FROM data_loads WHERE list_contains($ids, run_id)', { ids: sqlList(ids) })).toEqual({ n: 1 });
  });
});
