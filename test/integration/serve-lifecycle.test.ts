import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { adminSocketPath } from '../../src/admin/socket-path.js';
import { deleteRedisPrefix, redisUrl, tempDir, uniquePrefix } from '../support/context.js';
import { runCli, startServe } from '../support/processes.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function env(): Record<string, string> {
  const dir = tempDir();
  const prefix = uniquePrefix();
  cleanups.push(() => dir.cleanup(), () => deleteRedisPrefix(redisUrl(), prefix));
  return { ADSVC_DATA_DIR: dir.path, REDIS_URL: redisUrl(), ADSVC_QUEUE_PREFIX: prefix };
}

describe('serve lifecycle', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s drains and exits 0, releasing the data dir', async (signal) => {
    const e = env();
    const serve = await startServe([], e);
    const dataDir = e['ADSVC_DATA_DIR'] as string;
    expect(existsSync(adminSocketPath(dataDir))).toBe(true);
    const code = await serve.stop(signal);
    expect(code).toBe(0);
    expect(serve.stdout()).toMatch(/"drained":true[^\n]*"msg":"stopped"/);
    expect(existsSync(adminSocketPath(dataDir))).toBe(false);
    // The DuckDB file is free again: the CLI opens it directly.
    const r = await runCli(['accounts', 'create', '--name', 'After', '--url', 'https://a.example', '--timezone', 'UTC', '--currency', 'USD', '--json'], e);
    expect(r.code, r.stderr).toBe(0);
  });

  it('answers requests racing the signal with 200, a 503 envelope with Retry-After, or a closed port; never a bare error', async () => {
    const e = env();
    const serve = await startServe([], e);
    const created = await runCli(['accounts', 'create', '--name', 'Busy', '--url', 'https://a.example', '--timezone', 'UTC', '--currency', 'USD', '--json'], e);
    const key = JSON.parse(created.stdout).api_key.key as string;
    const answers = Array.from({ length: 40 }, (_, i) =>
      new Promise((r) => setTimeout(r, i)).then(() =>
        fetch(`${serve.url}/v1/ad_account`, { headers: { authorization: `Bearer ${key}` } }).then(
          async (r) => ({ status: r.status, body: (await r.json()) as { error?: { code: string } }, retryAfter: r.headers.get('retry-after') }),
          () => 'refused' as const,
        ),
      ),
    );
    await new Promise((r) => setTimeout(r, 10));
    const exit = serve.stop('SIGTERM');
    const results = await Promise.all(answers);
    expect(await exit).toBe(0);
    // Each request completed, was told to retry (503 with the envelope), or found the port closed.
    for (const r of results) {
      if (r === 'refused' || r.status === 200) continue;
      expect(r.status).toBe(503);
      expect(r.body.error?.code).toBe('service_unavailable');
      expect(r.retryAfter).toBe('1');
    }
  });

  it('a second serve on the same data dir fails clearly instead of corrupting it', async () => {
    const e = env();
    const first = await startServe([], e);
    cleanups.push(async () => {
      await first.stop();
    });
    await expect(startServe([], e)).rejects.toThrow(/in use by another process|already listening/);
  });

  it('exits with a message that says how to get Redis when none answers', async () => {
    const e = { ...env(), REDIS_URL: 'redis://127.0.0.1:1' };
    const err = await startServe([], e).then(
      () => '',
      (x: Error) => x.message,
    );
    expect(err).toMatch(/exited with 1/);
    expect(err).toMatch(/does not answer/);
    expect(err).toMatch(/apt-get install redis-server/);
  });

  it('serve --demo prints a working key for a demo account, and reuses the account', async () => {
    const e = env();
    const demo = await startServeDemo(e);
    const key = /adsvc_[0-9a-z]+_[0-9a-z]+/.exec(demo.stderr)?.[0];
    expect(key).toBeDefined();
    const account = demo.body;
    expect(account).toMatchObject({ name: 'adsvc demo', review: { status: 'approved' } });
    // A new demo account comes with 30 days of generated events, loaded by the service's workers.
    expect(demo.run).toMatchObject({ status: 'succeeded', rows_read: 300_000 });
    expect(demo.run?.stored).toBeGreaterThan(290_000);
    const again = await startServeDemo(e);
    expect(again.stderr).not.toContain('(new)');
    expect(again.body.id).toBe(account.id);
    expect(again.run).toBeUndefined();
  });
});

interface DemoRun {
  status: string;
  rows_read: number;
  stored: number;
}

async function startServeDemo(e: Record<string, string>): Promise<{ stderr: string; body: { id: string }; run?: DemoRun }> {
  const serve = await startServe(['--demo'], e);
  // The banner goes to stderr right after the service is up.
  const deadline = Date.now() + 10_000;
  while (!/try: curl/.test(serve.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const key = /adsvc_[0-9a-z]+_[0-9a-z]+/.exec(serve.stderr())?.[0] ?? '';
  const res = await fetch(`${serve.url}/v1/ad_account`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { id: string };
  const runId = /ingest run (irun_[0-9a-z]+)/.exec(serve.stderr())?.[1];
  let run: DemoRun | undefined;
  for (const until = Date.now() + 60_000; runId !== undefined && Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    run = (await (await fetch(`${serve.url}/v1/ingest_runs/${runId}`, { headers: { authorization: `Bearer ${key}` } })).json()) as DemoRun;
    if (run.status === 'succeeded' || run.status === 'failed') break;
  }
  const stderr = serve.stderr();
  await serve.stop();
  return { stderr, body, ...(run === undefined ? {} : { run }) };
}
