import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { adminSocketPath } from '../../src/admin/socket-path.js';
import { tempDir } from '../support/context.js';
import { runCli, useServe } from '../support/processes.js';

/** The `adsvc` CLI, run as a child process the way users run it. */
const CreatedAccount = z.object({
  account: z.object({ id: z.string().regex(/^adacct_/), name: z.string(), timezone: z.string(), currency_code: z.string(), features: z.array(z.string()) }).passthrough(),
  api_key: z.object({ id: z.string().regex(/^key_/), key: z.string().regex(/^adsvc_/), billing: z.literal(true), ad_account_id: z.string() }),
});
const CreatedKey = z.object({ id: z.string(), key: z.string().regex(/^adsvc_/), billing: z.boolean(), ad_account_id: z.string() });

const accountArgs = ['accounts', 'create', '--name', 'Acme Ads', '--url', 'https://www.acme.example', '--timezone', 'Europe/Berlin', '--currency', 'eur', '--json'];

describe('CLI without a running service (opens the store itself)', () => {
  const dir = tempDir();
  const env = { ADSVC_DATA_DIR: dir.path };
  afterAll(() => dir.cleanup());

  it('creates an account and a first key, printing JSON', async () => {
    const r = await runCli([...accountArgs, '--enable', 'brand,postpaid_invoice'], env);
    expect(r.code, r.stderr).toBe(0);
    const out = CreatedAccount.parse(JSON.parse(r.stdout));
    expect(out.account).toMatchObject({ name: 'Acme Ads', timezone: 'Europe/Berlin', currency_code: 'EUR', features: ['brand', 'postpaid_invoice'] });
    expect(out.api_key.ad_account_id).toBe(out.account.id);
    expect(existsSync(join(dir.path, 'adsvc.duckdb'))).toBe(true);

    const k = await runCli(['keys', 'create', '--account', out.account.id, '--json'], env);
    expect(k.code, k.stderr).toBe(0);
    expect(CreatedKey.parse(JSON.parse(k.stdout))).toMatchObject({ ad_account_id: out.account.id, billing: false });
    const kb = await runCli(['--data-dir', dir.path, 'keys', 'create', '--account', out.account.id, '--billing', '--json'], {});
    expect(CreatedKey.parse(JSON.parse(kb.stdout)).billing).toBe(true);
  });

  it('prints a readable summary without --json', async () => {
    const r = await runCli(accountArgs.filter((a) => a !== '--json'), env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/created ad account adacct_\w+ \(Acme Ads, Europe\/Berlin, EUR\)/);
    expect(r.stdout).toMatch(/adsvc_\w+/);
  });

  it.each([
    [['--timezone', 'Mars/Base'], /invalid --timezone: .*IANA/],
    [['--currency', 'XYZ'], /invalid --currency: .*ISO 4217/],
    [['--url', 'not a url'], /invalid --url/],
    [['--enable', 'brand,teleport'], /invalid --enable/],
  ])('refuses %j with exit 2 and a clear message', async (override, message) => {
    const args = [...accountArgs.filter((a) => a !== '--json')];
    const i = args.indexOf(override[0] as string);
    if (i >= 0) args[i + 1] = override[1] as string;
    else args.push(...(override as string[]));
    const r = await runCli(args, env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('a missing required flag is a usage error', async () => {
    const r = await runCli(['accounts', 'create', '--name', 'x'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/required option '--url/);
  });

  it('an unknown account is a clear error, as JSON with --json', async () => {
    const r = await runCli(['keys', 'create', '--account', 'adacct_nope', '--json'], env);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'resource_missing' });
    expect(r.stderr).toMatch(/No such ad account/);
  });

  it('has help on every command', async () => {
    for (const cmd of [[], ['serve'], ['accounts'], ['accounts', 'create'], ['accounts', 'set-timezone'], ['keys'], ['keys', 'create']]) {
      const r = await runCli([...cmd, '--help'], env);
      expect(r.code, cmd.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/Usage: adsvc/);
    }
  });

  it('reports a bad environment before doing anything', async () => {
    const r = await runCli(['keys', 'create', '--account', 'x'], { ...env, PORT: 'eighty' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PORT/);
  });
});

describe('CLI while serve owns the data dir (hands commands to the service)', () => {
  const { env, dataDir, serve } = useServe({ ADSVC_REVIEW_DELAY_MS: '100' });

  it('creates an account through the service; the key works over HTTP at once', async () => {
    expect(existsSync(adminSocketPath(dataDir))).toBe(true);
    const r = await runCli([...accountArgs, '--enable', 'brand'], env);
    expect(r.code, r.stderr).toBe(0);
    const out = CreatedAccount.parse(JSON.parse(r.stdout));
    const res = await fetch(`${serve().url}/v1/ad_account`, { headers: { authorization: `Bearer ${out.api_key.key}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: out.account.id, name: 'Acme Ads', timezone: 'Europe/Berlin', review: { status: 'approved' } });

    const k = await runCli(['keys', 'create', '--account', out.account.id, '--json'], env);
    expect(k.code, k.stderr).toBe(0);
    const key = CreatedKey.parse(JSON.parse(k.stdout)).key;
    const brand = await fetch(`${serve().url}/v1/ad_account/brand`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Acme Brand' }),
    });
    expect(brand.status).toBe(200);
    expect(((await brand.json()) as { review: { status: string } }).review.status).toBe('in_review');
  });

  it('passes validation errors back from the service', async () => {
    const r = await runCli(['accounts', 'create', '--name', 'x', '--url', 'https://x.example', '--timezone', 'Nowhere/Land', '--currency', 'USD'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid --timezone/);
  });
});
