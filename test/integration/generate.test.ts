import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { runCli, useServe } from '../support/processes.js';

/**
 * `adsvc generate`: deterministic files, realistic shape, and counts that the
 * loader reproduces from the file alone (checked here by reading the file in
 * JS, independently of the loader's SQL).
 */
async function cli(args: string[], env: Record<string, string>): Promise<unknown> {
  const r = await runCli([...args, '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

async function newAccount(env: Record<string, string>, currency = 'EUR'): Promise<string> {
  const made = (await cli(['accounts', 'create', '--name', 'Generated', '--url', 'https://g.example', '--timezone', 'Asia/Kathmandu', '--currency', currency], env)) as {
    account: { id: string };
  };
  return made.account.id;
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

interface Expected {
  rows: number;
  stored: number;
  duplicates: number;
  byReason: Record<string, number>;
  types: Record<string, number>;
  costOn: Record<string, number>;
}

/** What loading the NDJSON file must give, worked out from its lines. */
function expectedFromNdjson(text: string, currency: string, nowMs: number): Expected {
  const lines = text.split('\n').filter((l) => l !== '');
  const byReason: Record<string, number> = {};
  const types: Record<string, number> = {};
  const costOn: Record<string, number> = {};
  const ids = new Set<string>();
  let valid = 0;
  const bad = (reason: string) => (byReason[reason] = (byReason[reason] ?? 0) + 1);
  for (const line of lines) {
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      bad('invalid_json');
      continue;
    }
    const ts = typeof e['timestamp'] === 'number' ? e['timestamp'] : Date.parse(String(e['timestamp']));
    if (e['type'] === 'click' && e['user_id'] === undefined) bad('missing_field');
    else if (e['country'] !== undefined && !/^[A-Z]{2}$/.test(String(e['country']))) bad('invalid_value');
    else if (ts > nowMs + 600_000) bad('future_timestamp');
    else if (e['ad_id'] === 'ad_does_not_exist') bad('unknown_ad');
    else if (e['currency'] !== undefined && e['currency'] !== currency) bad('currency_mismatch');
    else {
      valid++;
      if (!ids.has(String(e['event_id']))) {
        ids.add(String(e['event_id']));
        const type = String(e['type']);
        types[type] = (types[type] ?? 0) + 1;
        if (typeof e['cost_micros'] === 'number' && e['cost_micros'] > 0) costOn[type] = (costOn[type] ?? 0) + 1;
      }
    }
  }
  return { rows: lines.length, stored: ids.size, duplicates: valid - ids.size, byReason, types, costOn };
}

describe('adsvc generate without a service', () => {
  const dir = tempDir();
  const env = { ADSVC_DATA_DIR: dir.path };
  afterAll(() => dir.cleanup());
  const args = (account: string, out: string, seed = '11') => ['generate', '--account', account, '--days', '30', '--events', '60000', '--seed', seed, '--out', out];

  it('writes the same file for the same arguments, and loads to exactly the counts the file implies', async () => {
    const account = await newAccount(env);
    const file = join(dir.path, 'a.ndjson');
    const made = (await cli([...args(account, file), '--create-entities', '--end-date', '2026-11-01'], env)) as Record<string, unknown>;
    expect(made).toMatchObject({ out: file, format: 'ndjson', rows: 60000, ads: 12, from: '2026-10-01T18:15:00.000Z', to: '2026-10-31T18:15:00.000Z' });
    const again = join(dir.path, 'b.ndjson');
    await cli([...args(account, again), '--end-date', '2026-11-01'], env);
    expect(sha(again)).toBe(sha(file));
    const other = join(dir.path, 'c.ndjson');
    await cli([...args(account, other, '12'), '--end-date', '2026-11-01'], env);
    expect(sha(other)).not.toBe(sha(file));

    const want = expectedFromNdjson(readFileSync(file, 'utf8'), 'EUR', Date.now());
    // The file has every kind of traffic and trouble the generator promises.
    expect(want.rows).toBe(60000);
    expect(Object.keys(want.byReason).sort()).toEqual(['currency_mismatch', 'future_timestamp', 'invalid_json', 'invalid_value', 'missing_field', 'unknown_ad']);
    expect(want.duplicates).toBeGreaterThan(100);
    const clickRate = (want.types['click'] ?? 0) / (want.types['impression'] ?? 1);
    expect(clickRate).toBeGreaterThan(0.02);
    expect(clickRate).toBeLessThan(0.045);
    expect(want.types['conversion']).toBeGreaterThan(100);
    // Impressions campaigns bill impressions, clicks campaigns bill clicks.
    expect(want.costOn['impression']).toBeGreaterThan(1000);
    expect(want.costOn['click']).toBeGreaterThan(100);
    expect(want.costOn['conversion']).toBeUndefined();

    const run = (await cli(['ingest', file], env)) as Record<string, unknown>;
    expect(run).toMatchObject({ status: 'succeeded', rows_read: want.rows, stored: want.stored, duplicates: want.duplicates, quarantined_by_reason: want.byReason });
  });

  it('writes the same events as CSV (gzipped) and Parquet', async () => {
    const account = await newAccount(env, 'USD');
    const [ndjson, csv, parquet] = ['x.ndjson', 'x.csv.gz', 'x.parquet'].map((f) => join(dir.path, f)) as [string, string, string];
    await cli([...args(account, ndjson), '--create-entities'], env);
    await cli(args(account, csv), env);
    await cli(args(account, parquet), env);
    expect(gunzipSync(readFileSync(csv)).toString().split('\n')[0]).toBe(
      'event_id,type,timestamp,ad_id,ad_account_id,user_id,country,device,platform,product_feed_id,product_item_id,cost_micros,event_name,value,currency',
    );
    const want = expectedFromNdjson(readFileSync(ndjson, 'utf8'), 'USD', Date.now());
    const fromCsv = (await cli(['ingest', csv], env)) as { stored: number; quarantined_by_reason: Record<string, number> };
    expect(fromCsv.stored).toBe(want.stored);
    // A broken line is a malformed row in CSV where NDJSON has invalid JSON.
    const { invalid_json: broken, ...rest } = want.byReason;
    expect(fromCsv.quarantined_by_reason).toEqual({ ...rest, malformed_row: broken });
    // Parquet holds the same events: nothing new to store.
    const fromParquet = (await cli(['ingest', parquet], env)) as { stored: number; duplicates: number };
    expect(fromParquet).toMatchObject({ stored: 0, duplicates: want.stored + want.duplicates });
  });

  it('refuses what it cannot do with a clear message', async () => {
    const account = await newAccount(env);
    const noAds = await runCli(['generate', '--account', account, '--days', '1', '--events', '10', '--out', join(dir.path, 'n.ndjson')], env);
    expect(noAds.code).toBe(2);
    expect(noAds.stderr).toMatch(/has no ads.*--create-entities/);
    const badOut = await runCli(['generate', '--account', account, '--days', '1', '--events', '10', '--out', join(dir.path, 'n.txt')], env);
    expect(badOut.code).toBe(2);
    expect(badOut.stderr).toMatch(/--out.*\.ndjson/);
    const badDays = await runCli(['generate', '--account', account, '--days', 'many', '--events', '10', '--out', join(dir.path, 'n.csv')], env);
    expect(badDays.code).toBe(2);
    expect(badDays.stderr).toMatch(/--days/);
  });
});

describe('adsvc generate while serve runs', () => {
  const { env, dataDir } = useServe();

  it('creates entities and writes the file through the service', async () => {
    const account = await newAccount(env);
    const file = join(dataDir, 's.parquet');
    const made = await cli(['generate', '--account', account, '--days', '3', '--events', '5000', '--out', file, '--create-entities'], env);
    expect(made).toMatchObject({ rows: 5000, ads: 12 });
    const run = (await cli(['ingest', file], env)) as { status: string; rows_read: number; stored: number };
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 5000 });
    expect(run.stored).toBeGreaterThan(4900);
  });
});
