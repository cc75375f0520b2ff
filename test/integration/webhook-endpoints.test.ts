import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** The webhook endpoint API (COMPAT.md, Webhook endpoints) and every 4xx it answers. */
const Endpoint = z
  .object({
    id: z.string().regex(/^we_[a-z0-9]{24}$/),
    object: z.literal('webhook_endpoint'),
    name: z.string(),
    url: z.string(),
    event_types: z.array(z.string()).min(1),
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.string().nullable(),
    signing_secret_hint: z.string().regex(/^whsec_\.\.\..{4}$/),
    previous_secret_expires_at: z.number().int().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
    signing_secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{43}=$/).optional(),
  })
  .strict();
type Endpoint = z.infer<typeof Endpoint>;

const Delivery = z
  .object({
    id: z.string().regex(/^dlv_/),
    object: z.literal('webhook_delivery'),
    endpoint_id: z.string(),
    event_id: z.string().regex(/^evt_/),
    event_type: z.string(),
    test: z.boolean(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.number().int(),
    first_attempt_at: z.number().int().nullable(),
    last_attempt_at: z.number().int().nullable(),
    next_attempt_at: z.number().int().nullable(),
    retry_deadline: z.number().int().nullable(),
    completed_at: z.number().int().nullable(),
  })
  .strict();

const NOW_S = Math.floor(Date.UTC(2026, 10, 22, 12) / 1000);
const URL_OK = 'https://hooks.example.com/adsvc';

let t: TestApp;
let strict: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
let s: { accountId: string; key: string };
beforeAll(async () => {
  t = await startTestApp({ env: { ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST: '1' } });
  strict = await startTestApp();
  a = await makeAccount(t);
  b = await makeAccount(t);
  s = await makeAccount(strict);
});
afterAll(async () => {
  await t.close();
  await strict.close();
});

const post = (key: string, url: string, payload?: unknown, app = t) =>
  app.app.inject({ method: 'POST', url, headers: bearer(key), ...(payload === undefined ? {} : { payload: payload as object }) });
const get = (key: string, url: string, app = t) => app.app.inject({ method: 'GET', url, headers: bearer(key) });
function expectError(res: { statusCode: number; json(): { error: unknown } }, status: number, code: string, param: string | null) {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
  expect(Object.keys(res.json().error as object).sort()).toEqual(['code', 'message', 'param', 'type']);
}
async function create(payload: object = {}, key = a.key): Promise<Endpoint> {
  const res = await post(key, '/v1/webhook_endpoints', { name: 'Main', url: URL_OK, event_types: ['campaign.updated'], ...payload });
  expect(res.statusCode, res.body).toBe(200);
  return Endpoint.parse(res.json());
}

describe('create', () => {
  it('returns the endpoint with its signing secret, once', async () => {
    const e = await create({ event_types: ['campaign.updated', 'ad.review.updated', 'campaign.updated'] });
    expect(e).toMatchObject({ name: 'Main', url: URL_OK, event_types: ['campaign.updated', 'ad.review.updated'], status: 'enabled', disabled_reason: null, created_at: NOW_S, previous_secret_expires_at: null });
    const secret = e.signing_secret as string;
    expect(e.signing_secret_hint).toBe(`whsec_...${secret.slice(-4)}`);
    const read = Endpoint.parse((await get(a.key, `/v1/webhook_endpoints/${e.id}`)).json());
    expect(read.signing_secret).toBeUndefined();
    expect(read).toEqual({ ...e, signing_secret: undefined });
    expect(JSON.stringify(read)).not.toContain(secret.slice(6, 20));
  });

  it('honours Idempotency-Key', async () => {
    const headers = { ...bearer(a.key), 'idempotency-key': 'we-create-1' };
    const payload = { name: 'Idem', url: URL_OK, event_types: ['campaign.updated'] };
    const first = await t.app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers, payload });
    const again = await t.app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers, payload });
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    const other = await t.app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers, payload: { ...payload, name: 'Other' } });
    expect(other.statusCode).toBe(422);
  });

  it.each([
    [{ url: undefined }, 'missing_required_parameter', 'url'],
    [{ name: undefined }, 'missing_required_parameter', 'name'],
    [{ event_types: undefined }, 'missing_required_parameter', 'event_types'],
    [{ url: 'http://hooks.example.com/x' }, 'invalid_value', 'url'],
    [{ url: 'ftp://hooks.example.com/x' }, 'invalid_value', 'url'],
    [{ url: 'hooks.example.com/x' }, 'invalid_value', 'url'],
    [{ url: 'https://user:pw@hooks.example.com/x' }, 'invalid_value', 'url'],
    [{ url: `https://hooks.example.com/${'x'.repeat(2048)}` }, 'string_above_max_length', 'url'],
    [{ url: 42 }, 'invalid_type', 'url'],
    [{ event_types: [] }, 'array_below_min_length', 'event_types'],
    [{ event_types: 'campaign.updated' }, 'invalid_type', 'event_types'],
    [{ event_types: ['campaign.updated', 'response.completed'] }, 'invalid_value', 'event_types[1]'],
    [{ name: '' }, 'string_below_min_length', 'name'],
    [{ name: '   ' }, 'invalid_value', 'name'],
    [{ name: 'n'.repeat(257) }, 'string_above_max_length', 'name'],
    [{ secret: 'whsec_x' }, 'unknown_parameter', 'secret'],
  ])('refuses %o with 400 %s', async (change, code, param) => {
    const payload: Record<string, unknown> = { name: 'Main', url: URL_OK, event_types: ['campaign.updated'], ...change };
    for (const k of Object.keys(change)) if ((change as Record<string, unknown>)[k] === undefined) delete payload[k];
    expectError(await post(a.key, '/v1/webhook_endpoints', payload), 400, code, param);
  });

  it('refuses a body that is not an object', async () => {
    expectError(await post(a.key, '/v1/webhook_endpoints', ['x']), 400, 'invalid_type', null);
  });

  it('accepts loopback http:// only with ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST=1', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'http://[::1]:9/hook']) {
      expect((await create({ url })).url).toBe(url);
      const res = await post(s.key, '/v1/webhook_endpoints', { name: 'Local', url, event_types: ['campaign.updated'] }, strict);
      expectError(res, 400, 'invalid_value', 'url');
      expect(res.json().error.message).toContain('ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST=1');
    }
    // Not loopback: refused even with the switch.
    expectError(await post(a.key, '/v1/webhook_endpoints', { name: 'x', url: 'http://10.0.0.1/hook', event_types: ['campaign.updated'] }), 400, 'invalid_value', 'url');
    expect((await post(s.key, '/v1/webhook_endpoints', { name: 'Secure', url: URL_OK, event_types: ['campaign.updated'] }, strict)).statusCode).toBe(200);
  });
});

describe('list, retrieve, isolation', () => {
  it('pages the account own endpoints, newest first', async () => {
    const acct = await makeAccount(t);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await create({ name: `E${i}` }, acct.key)).id);
    const page1 = (await get(acct.key, '/v1/webhook_endpoints?limit=2')).json();
    expect(page1).toMatchObject({ object: 'list', has_more: true, first_id: made[4], last_id: made[3] });
    const page2 = (await get(acct.key, `/v1/webhook_endpoints?limit=10&after=${page1.last_id}`)).json();
    expect(page2.data.map((e: Endpoint) => e.id)).toEqual([made[2], made[1], made[0]]);
    expect(page2.has_more).toBe(false);
    for (const e of page2.data) expect(Endpoint.parse(e).signing_secret).toBeUndefined();
    const asc = (await get(acct.key, '/v1/webhook_endpoints?order=asc&limit=500')).json();
    expect(asc.data.map((e: Endpoint) => e.id)).toEqual(made);
    expectError(await get(acct.key, '/v1/webhook_endpoints?limit=501'), 400, 'integer_above_max_value', 'limit');
    expectError(await get(acct.key, '/v1/webhook_endpoints?color=red'), 400, 'unknown_parameter', 'color');
  });

  it('answers 404 for endpoints of other accounts, exactly like unknown ones', async () => {
    const e = await create();
    for (const path of ['', '/delete', '/rotate_secret', '/test']) expectError(await post(b.key, `/v1/webhook_endpoints/${e.id}${path}`), 404, 'resource_missing', null);
    // Not found comes before the body is judged: nothing to learn about another account's endpoints.
    expectError(await post(b.key, `/v1/webhook_endpoints/${e.id}`, { url: 'http://x.example' }), 404, 'resource_missing', null);
    expectError(await post(b.key, `/v1/webhook_endpoints/${e.id}/test`, { event_type: 'nope' }), 404, 'resource_missing', null);
    expectError(await get(b.key, `/v1/webhook_endpoints/${e.id}`), 404, 'resource_missing', null);
    expectError(await get(b.key, `/v1/webhook_endpoints/${e.id}/deliveries`), 404, 'resource_missing', null);
    expectError(await get(a.key, '/v1/webhook_endpoints/we_nope'), 404, 'resource_missing', null);
    expect((await get(b.key, '/v1/webhook_endpoints')).json().data.map((x: Endpoint) => x.id)).not.toContain(e.id);
  });

  it('needs an API key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/webhook_endpoints' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('missing_api_key');
  });
});

describe('update and delete', () => {
  it('changes only what is sent', async () => {
    const e = await create();
    t.clock.advance(5000);
    const res = await post(a.key, `/v1/webhook_endpoints/${e.id}`, { name: 'Renamed', event_types: ['ingest_run.completed', 'spend_limit.reached'] });
    expect(res.statusCode, res.body).toBe(200);
    const u = Endpoint.parse(res.json());
    expect(u).toEqual({ ...e, signing_secret: undefined, name: 'Renamed', event_types: ['ingest_run.completed', 'spend_limit.reached'], updated_at: e.updated_at + 5 });
    const moved = Endpoint.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}`, { url: 'https://other.example.com/h' })).json());
    expect(moved).toMatchObject({ url: 'https://other.example.com/h', name: 'Renamed' });
    expect(Endpoint.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}`, {})).json()).name).toBe('Renamed');
  });

  it('disables and enables; disabling ends pending deliveries', async () => {
    const e = await create();
    const d = Delivery.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}/test`, {})).json());
    expect(d.status).toBe('pending');
    const off = Endpoint.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}`, { status: 'disabled' })).json());
    expect(off).toMatchObject({ status: 'disabled', disabled_reason: 'requested' });
    const list = (await get(a.key, `/v1/webhook_endpoints/${e.id}/deliveries`)).json();
    expect(list.data[0]).toMatchObject({ id: d.id, status: 'failed', attempts: 0, last_error: 'The endpoint was disabled.', next_attempt_at: null });
    expectError(await post(a.key, `/v1/webhook_endpoints/${e.id}/test`), 400, 'invalid_value', null);
    const on = Endpoint.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}`, { status: 'enabled' })).json());
    expect(on).toMatchObject({ status: 'enabled', disabled_reason: null });
  });

  it.each([
    [{ url: 'http://hooks.example.com/x' }, 'invalid_value', 'url'],
    [{ event_types: [] }, 'array_below_min_length', 'event_types'],
    [{ event_types: ['nope'] }, 'invalid_value', 'event_types[0]'],
    [{ status: 'paused' }, 'invalid_value', 'status'],
    [{ name: null }, 'invalid_type', 'name'],
    [{ signing_secret: 'whsec_x' }, 'unknown_parameter', 'signing_secret'],
  ])('refuses %o with 400 %s', async (payload, code, param) => {
    const e = await create();
    expectError(await post(a.key, `/v1/webhook_endpoints/${e.id}`, payload), 400, code, param);
  });

  it('deletes the endpoint and its deliveries', async () => {
    const e = await create();
    await post(a.key, `/v1/webhook_endpoints/${e.id}/test`);
    const res = await post(a.key, `/v1/webhook_endpoints/${e.id}/delete`);
    expect(res.json()).toEqual({ id: e.id, object: 'webhook_endpoint.deleted', deleted: true });
    expectError(await get(a.key, `/v1/webhook_endpoints/${e.id}`), 404, 'resource_missing', null);
    expectError(await post(a.key, `/v1/webhook_endpoints/${e.id}/delete`), 404, 'resource_missing', null);
    expect(await t.store.all('SELECT id FROM webhook_deliveries WHERE endpoint_id = $e', { e: e.id })).toEqual([]);
    expectError(await post(a.key, `/v1/webhook_endpoints/${e.id}/delete`, { force: true }), 400, 'unknown_parameter', 'force');
  });
});

describe('rotate_secret', () => {
  it('replaces the secret at once by default', async () => {
    const e = await create();
    const r = Endpoint.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}/rotate_secret`)).json());
    expect(r.signing_secret).toBeDefined();
    expect(r.signing_secret).not.toBe(e.signing_secret);
    expect(r.signing_secret_hint).toBe(`whsec_...${(r.signing_secret as string).slice(-4)}`);
    expect(r.previous_secret_expires_at).toBeNull();
    const row = await t.store.get('SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $id', { id: e.id });
    expect(row).toEqual({ secret: r.signing_secret, previous_secret: null });
  });

  it('keeps the old secret signing for 24 hours on request', async () => {
    const e = await create();
    const r = Endpoint.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}/rotate_secret`, { keep_old_secret_active_for_24_hours: true })).json());
    const now = Math.floor(t.clock.nowMs() / 1000);
    expect(r.previous_secret_expires_at).toBe(now + 86_400);
    const row = await t.store.get('SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $id', { id: e.id });
    expect(row).toEqual({ secret: r.signing_secret, previous_secret: e.signing_secret });
    t.clock.advance(86_400_000);
    expect(Endpoint.parse((await get(a.key, `/v1/webhook_endpoints/${e.id}`)).json()).previous_secret_expires_at).toBeNull();
  });

  it.each([
    [{ keep_old_secret_active_for_24_hours: 'yes' }, 'invalid_type', 'keep_old_secret_active_for_24_hours'],
    [{ keep: true }, 'unknown_parameter', 'keep'],
  ])('refuses %o', async (payload, code, param) => {
    const e = await create();
    expectError(await post(a.key, `/v1/webhook_endpoints/${e.id}/rotate_secret`, payload), 400, code, param);
  });
});

describe('test events and the deliveries list', () => {
  it('queues a test event of the first type by default, with the spec body', async () => {
    const e = await create({ event_types: ['ad.review.updated', 'campaign.updated'] });
    const res = await post(a.key, `/v1/webhook_endpoints/${e.id}/test`);
    expect(res.statusCode, res.body).toBe(202);
    const d = Delivery.parse(res.json());
    expect(d).toMatchObject({ endpoint_id: e.id, event_type: 'ad.review.updated', test: true, status: 'pending', attempts: 0, last_status_code: null, last_error: null, next_attempt_at: Math.floor(t.clock.nowMs() / 1000) });
    const event = await t.store.get('SELECT payload FROM webhook_events WHERE id = $id', { id: d.event_id });
    const body = JSON.parse(String(event?.['payload']));
    expect(Object.keys(body)).toEqual(['object', 'id', 'type', 'created_at', 'data']);
    expect(body).toEqual({ object: 'event', id: d.event_id, type: 'ad.review.updated', created_at: Math.floor(t.clock.nowMs() / 1000), data: { id: expect.stringMatching(/^ad_test_/) } });
  });

  it('takes an event_type, and uses the account as the sample of an account review', async () => {
    const e = await create();
    const d = Delivery.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}/test`, { event_type: 'ad_account.review.updated' })).json());
    expect(d.event_type).toBe('ad_account.review.updated');
    const event = await t.store.get('SELECT resource_id FROM webhook_events WHERE id = $id', { id: d.event_id });
    expect(event?.['resource_id']).toBe(a.accountId);
    expectError(await post(a.key, `/v1/webhook_endpoints/${e.id}/test`, { event_type: 'response.completed' }), 400, 'invalid_value', 'event_type');
    expectError(await post(a.key, `/v1/webhook_endpoints/${e.id}/test`, { event: 'x' }), 400, 'unknown_parameter', 'event');
  });

  it('lists deliveries newest first, by status, in pages', async () => {
    const e = await create();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(Delivery.parse((await post(a.key, `/v1/webhook_endpoints/${e.id}/test`)).json()).id);
    await t.store.run("UPDATE webhook_deliveries SET status = 'succeeded', attempts = 1, last_status_code = 204 WHERE id = $id", { id: ids[1] as string });
    const all = (await get(a.key, `/v1/webhook_endpoints/${e.id}/deliveries`)).json();
    expect(all).toMatchObject({ object: 'list', has_more: false, first_id: ids[2], last_id: ids[0] });
    for (const d of all.data) Delivery.parse(d);
    expect(all.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1], ids[0]]);
    const done = (await get(a.key, `/v1/webhook_endpoints/${e.id}/deliveries?status=succeeded`)).json();
    expect(done.data).toEqual([expect.objectContaining({ id: ids[1], status: 'succeeded', attempts: 1, last_status_code: 204 })]);
    const page = (await get(a.key, `/v1/webhook_endpoints/${e.id}/deliveries?limit=1&order=asc&after=${ids[0]}`)).json();
    expect(page).toMatchObject({ has_more: true, first_id: ids[1] });
    expectError(await get(a.key, `/v1/webhook_endpoints/${e.id}/deliveries?status=lost`), 400, 'invalid_value', 'status');
    expectError(await get(a.key, `/v1/webhook_endpoints/${e.id}/deliveries?after=dlv_nope`), 400, 'invalid_value', 'after');
  });
});
