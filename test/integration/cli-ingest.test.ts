import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/context.js';
import { runCli, useServe } from '../support/processes.js';

/** `adsvc ingest`, with and without a running serve on the same data dir. */
const conversions = (accountId: string, prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ event_id: `${prefix}${i}`, type: 'conversion', timestamp: Date.now() - 60_000, user_id: `u${i}`, ad_account_id: accountId, event_name: 'lead_created' }),
  ).join('\n') + '\n';

async function newAccount(env: Record<string, string>): Promise<string> {
  const r = await runCli(['accounts', 'create', '--name', 'Ingest', '--url', 'https://i.example', '--timezone', 'UTC', '--currency', 'USD', '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).account.id as string;
}

describe('adsvc ingest without a service', () => {
  const dir = tempDir();
  const env = { ADSVC_DATA_DIR: dir.path };
  afterAll(() => dir.cleanup());

  it('loads files, reports the run, and loads nothing twice', async () => {
    const account = await newAccount(env);
    const file = join(dir.path, 'a.ndjson');
    writeFileSync(file, conversions(account, 'c', 20) + '{oops\n');
    const r = await runCli(['ingest', file, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'succeeded', rows_read: 21, stored: 20, duplicates: 0, quarantined: 1, quarantined_by_reason: { invalid_json: 1 } });
    const again = await runCli(['ingest', file, '--account', account], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/stored 0, duplicates 20, quarantined 1 \(invalid_json 1\)/);
  });

  it('fails clearly on files it cannot take', async () => {
    const bad = await runCli(['ingest', join(dir.path, 'missing.ndjson')], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid --files: .*does not exist/);
    // A malformed CSV row is quarantined with its line, never skipped.
    const csv = join(dir.path, 'broken.csv');
    writeFileSync(csv, 'event_id,type\ne1,impression\ne2,impression,extra,fields\n');
    const quarantined = await runCli(['ingest', csv, '--json'], env);
    expect(quarantined.code, quarantined.stderr).toBe(0);
    expect(JSON.parse(quarantined.stdout)).toMatchObject({ status: 'succeeded', rows_read: 2, stored: 0, quarantined_by_reason: { missing_field: 1, malformed_row: 1 } });
    // A file that is not what its name says fails the run, with the reader's words.
    const parquet = join(dir.path, 'fake.parquet');
    writeFileSync(parquet, 'this is not parquet');
    const r = await runCli(['ingest', parquet, '--json'], env);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed', error: expect.stringContaining('fake.parquet') });
  });
});

describe('adsvc ingest while serve runs', () => {
  const { env, dataDir } = useServe();

  it("hands the run to the service's workers and waits for the result", async () => {
    const account = await newAccount(env);
    const file = join(dataDir, 'b.ndjson');
    writeFileSync(file, conversions(account, 'd', 50));
    const r = await runCli(['ingest', file, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'succeeded', stored: 50 });
    const queued = await runCli(['ingest', file, '--no-wait', '--json'], env);
    expect(JSON.parse(queued.stdout).status).toMatch(/queued|running|succeeded/);
  });
});
