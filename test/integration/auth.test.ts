import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };

beforeAll(async () => {
  t = await startTestApp();
  a = await makeAccount(t, { name: 'Account A' });
  b = await makeAccount(t, { name: 'Account B' });
});
afterAll(() => t.close());

const expect401 = (res: { statusCode: number; json(): unknown }, code: string) => {
  expect(res.statusCode).toBe(401);
  expect(res.json()).toEqual({ error: { message: expect.any(String), type: 'authentication_error', param: null, code } });
};

describe('API key authentication', () => {
  it('no Authorization header: 401 missing_api_key', async () => {
    expect401(await t.app.inject({ url: '/v1/ad_account' }), 'missing_api_key');
  });

  it.each([
    ['Bearer ', 'missing_api_key'],
    ['Basic dXNlcjpwYXNz', 'invalid_api_key'],
    ['Bearer not-a-key', 'invalid_api_key'],
    ['Bearer adsvc_0000000000000000_0000000000000000000000000000000000000000', 'invalid_api_key'],
  ])('%j: 401 %s', async (authorization, code) => {
    expect401(await t.app.inject({ url: '/v1/ad_account', headers: { authorization } }), code);
  });

  it('a key with the right id but a wrong secret is refused', async () => {
    const tampered = a.key.slice(0, -1) + (a.key.endsWith('a') ? 'b' : 'a');
    expect401(await t.app.inject({ url: '/v1/ad_account', headers: bearer(tampered) }), 'invalid_api_key');
  });

  it('authenticates before reading the body', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: { 'content-type': 'application/json' }, payload: '{broken' });
    expect401(res, 'missing_api_key');
  });

  it('the scheme is case-insensitive', async () => {
    const res = await t.app.inject({ url: '/v1/ad_account', headers: { authorization: `bearer ${a.key}` } });
    expect(res.statusCode).toBe(200);
  });

  it('each key sees only its own account', async () => {
    const ra = await t.app.inject({ url: '/v1/ad_account', headers: bearer(a.key) });
    const rb = await t.app.inject({ url: '/v1/ad_account', headers: bearer(b.key) });
    expect(ra.json()).toMatchObject({ id: a.accountId, name: 'Account A' });
    expect(rb.json()).toMatchObject({ id: b.accountId, name: 'Account B' });
  });

  it("another account's object is 404, exactly like one that does not exist", async () => {
    const othersFavicon = await insertFile(t.store, b.accountId, 'account_favicon');
    const viaOther = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(a.key), payload: { favicon_file_id: othersFavicon } });
    const missing = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(a.key), payload: { favicon_file_id: 'file_doesnotexist' } });
    for (const res of [viaOther, missing]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'favicon_file_id' });
    }
    expect(viaOther.body).not.toContain(b.accountId);
    // Nothing changed on account A.
    expect((await t.app.inject({ url: '/v1/ad_account', headers: bearer(a.key) })).json().review.status).toBe('approved');
  });

  it('keys are stored as SHA-256 hashes only', async () => {
    const rows = await t.store.all('SELECT * FROM api_keys');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(a.key.split('_')[2]);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(String(r['secret_hash'])))).toBe(true);
  });
});
