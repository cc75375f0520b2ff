import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

const AdAccountWire = z
  .object({
    id: z.string().regex(/^adacct_/),
    name: z.string(),
    url: z.string(),
    preview_url: z.string().nullable(),
    status: z.enum(['active', 'paused']),
    timezone: z.string(),
    currency_code: z.string(),
    review: z.object({ status: z.enum(['in_review', 'rejected', 'approved']), reason: z.string().optional() }).strict(),
  })
  .strict();

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('GET /v1/ad_account', () => {
  it('returns the account in the documented shape', async () => {
    const { accountId, key } = await makeAccount(t, { timezone: 'Asia/Kolkata', name: 'Acme Ads' });
    const res = await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) });
    expect(res.statusCode).toBe(200);
    const body = AdAccountWire.parse(res.json());
    expect(body).toEqual({
      id: accountId,
      name: 'Acme Ads',
      url: 'https://www.test.example',
      preview_url: null,
      status: 'active',
      timezone: 'Asia/Kolkata',
      currency_code: 'USD',
      review: { status: 'approved' },
    });
  });
});

describe('POST /v1/ad_account/brand', () => {
  it('is 403 permission_error when brand updates are not enabled', async () => {
    const { key } = await makeAccount(t, { enable: [] });
    const res = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { name: 'New' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({ type: 'permission_error', code: 'brand_updates_not_enabled' });
  });

  it.each([
    [{}, 400, 'missing_required_parameter', 'name'],
    [{ name: '' }, 400, 'string_below_min_length', 'name'],
    [{ name: '   ' }, 400, 'invalid_value', 'name'],
    [{ name: 'x'.repeat(257) }, 400, 'string_above_max_length', 'name'],
    [{ name: 42 }, 400, 'invalid_type', 'name'],
    [{ favicon_file_id: null }, 400, 'invalid_type', 'favicon_file_id'],
    [{ name: 'Ok', colour: 'red' }, 400, 'unknown_parameter', 'colour'],
  ])('%j -> %i %s', async (payload, status, code, param) => {
    const { key } = await makeAccount(t);
    const res = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload });
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('refuses a file that was not uploaded as a favicon', async () => {
    const { accountId, key } = await makeAccount(t);
    const creative = await insertFile(t.store, accountId, null);
    const res = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { favicon_file_id: creative } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_value', param: 'favicon_file_id' });
  });

  it('updates the name, starts a review and queues its job', async () => {
    const { accountId, key } = await makeAccount(t);
    const before = t.scheduled.length;
    const res = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { name: 'Acme Brand' } });
    expect(res.statusCode).toBe(200);
    expect(AdAccountWire.parse(res.json())).toMatchObject({ id: accountId, name: 'Acme Brand', review: { status: 'in_review' } });
    expect(t.scheduled.slice(before)).toEqual([{ accountId, reviewSeq: 1 }]);
    const again = await t.app.inject({ method: 'POST', url: '/v1/ad_account/brand', headers: bearer(key), payload: { favicon_file_id: await insertFile(t.store, accountId, 'account_favicon') } });
    expect(again.json()).toMatchObject({ name: 'Acme Brand', review: { status: 'in_review' } });
    expect(again.json().preview_url).toMatch(/^http:\/\/localhost:\d+\/v1\/files\/file_\w+\/content$/);
    expect(t.scheduled.slice(before)).toEqual([
      { accountId, reviewSeq: 1 },
      { accountId, reviewSeq: 2 },
    ]);
  });
});
