import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { queryArray, queryInt } from '../../src/http/params.js';
import { route } from '../../src/http/route.js';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Every error path renders {"error":{message,type,param,code}} with the right
 * status, and every response carries x-request-id.
 */
let t: TestApp;
let key: string;
let baseUrl: string;

const Envelope = z
  .object({
    error: z.object({ message: z.string().min(1), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }).strict(),
  })
  .strict();

beforeAll(async () => {
  t = await startTestApp({
    extraRoutes: (v1) => {
      route(v1, {
        method: 'GET',
        url: '/test/list',
        query: z.object({ limit: queryInt(1, 500).default(20), fields: queryArray(z.string()).optional() }).strict(),
        handler: async ({ query }) => ({ limit: query.limit, fields: query.fields ?? null }),
      });
      route(v1, {
        method: 'POST',
        url: '/test/things',
        body: z.object({ name: z.string().min(3), budget: z.object({ micros: z.number().int().min(1_000_000) }).strict() }).strict(),
        handler: async ({ body }) => body,
      });
      route(v1, {
        method: 'GET',
        url: '/test/boom',
        handler: async () => {
          throw new Error('secret internals: postgres://admin:hunter2@db');
        },
      });
    },
  });
  ({ key } = await makeAccount(t));
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

async function expectError(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  type: string,
  code: string,
  param: string | null = null,
): Promise<void> {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['x-request-id'])).toMatch(/^req_[0-9a-z]{24}$/);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  const body = Envelope.parse(JSON.parse(res.body));
  expect(body.error).toMatchObject({ type, code, param });
}

describe('error envelope', () => {
  it('unknown routes are 404 route_not_found, with or without a key', async () => {
    await expectError(await t.app.inject({ url: '/v1/nothing-here', headers: bearer(key) }), 404, 'invalid_request_error', 'route_not_found');
    await expectError(await t.app.inject({ url: '/nothing' }), 404, 'invalid_request_error', 'route_not_found');
  });

  it.each(['PUT', 'PATCH', 'DELETE'] as const)('%s answers 405 with Allow and the envelope', async (method) => {
    const res = await t.app.inject({ method, url: '/v1/ad_account', headers: bearer(key), payload: {} });
    await expectError(res, 405, 'invalid_request_error', 'method_not_allowed');
    expect(res.headers['allow']).toBe('GET, POST');
  });

  it('a body that is not JSON is 400 invalid_json', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/test/things', headers: { ...bearer(key), 'content-type': 'application/json' }, payload: '{"name": "abc",' });
    await expectError(res, 400, 'invalid_request_error', 'invalid_json');
  });

  it('an unsupported content type is 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/test/things', headers: { ...bearer(key), 'content-type': 'application/xml' }, payload: '<a/>' });
    await expectError(res, 415, 'invalid_request_error', 'unsupported_media_type');
    // The message names what was sent and what the endpoint takes.
    expect(res.json().error.message).toBe('Unsupported Content-Type application/xml; this endpoint takes application/json.');
  });

  it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf8"', 'Application/JSON'])('a JSON body sent as %s is read', async (type) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/test/things', headers: { ...bearer(key), 'content-type': type }, payload: '{"name": "abc", "budget": {"micros": 1000000}}' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ name: 'abc', budget: { micros: 1_000_000 } });
  });

  it('a JSON body in another charset is 415', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/test/things', headers: { ...bearer(key), 'content-type': 'application/json; charset=iso-8859-1' }, payload: '{"name": "abc"}' });
    await expectError(res, 415, 'invalid_request_error', 'unsupported_media_type');
    expect(res.json().error.message).toBe('Unsupported charset iso-8859-1; send the body as UTF-8.');
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('a body sent with content-encoding %s is decoded', async (encoding, encode) => {
    const payload = encode(Buffer.from('{"name": "abc", "budget": {"micros": 1000000}}'));
    const res = await t.app.inject({ method: 'POST', url: '/v1/test/things', headers: { ...bearer(key), 'content-type': 'application/json', 'content-encoding': encoding }, payload });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ name: 'abc', budget: { micros: 1_000_000 } });
  });

  it('a body that does not decode is 400, an unknown encoding 415, and the limit counts decoded bytes', async () => {
    const post = (encoding: string, payload: Buffer) =>
      t.app.inject({ method: 'POST', url: '/v1/test/things', headers: { ...bearer(key), 'content-type': 'application/json', 'content-encoding': encoding }, payload });
    const broken = await post('gzip', Buffer.from('{"name": "abc"}'));
    await expectError(broken, 400, 'invalid_request_error', 'invalid_value');
    expect(broken.json().error.message).toMatch(/^The request body is not valid gzip/);
    const zstd = await post('zstd', Buffer.from('{}'));
    await expectError(zstd, 415, 'invalid_request_error', 'unsupported_media_type');
    expect(zstd.json().error.message).toBe('Unsupported Content-Encoding zstd; send the body as gzip, deflate, br or unencoded.');
    // 2 MiB of JSON squeezed into a few KiB is still over the 1 MiB limit once decoded.
    const bomb = gzipSync(Buffer.from(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) })));
    expect(bomb.length).toBeLessThan(64 * 1024);
    await expectError(await post('gzip', bomb), 413, 'invalid_request_error', 'request_too_large');
  });

  it('a body over the limit is 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/test/things',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    await expectError(res, 413, 'invalid_request_error', 'request_too_large');
  });

  it.each([
    ['limit=5000', 'integer_above_max_value', 'limit'],
    ['limit=0', 'integer_below_min_value', 'limit'],
    ['limit=ten', 'invalid_type', 'limit'],
    ['limit=2.5', 'invalid_type', 'limit'],
    ['color=red', 'unknown_parameter', 'color'],
  ])('query %s -> 400 %s', async (qs, code, param) => {
    await expectError(await t.app.inject({ url: `/v1/test/list?${qs}`, headers: bearer(key) }), 400, 'invalid_request_error', code, param);
  });

  it('accepts the array forms and applies defaults', async () => {
    for (const qs of ['fields[]=a&fields[]=b', 'fields=a&fields=b', 'fields%5B%5D=a&fields%5B%5D=b']) {
      const res = await t.app.inject({ url: `/v1/test/list?${qs}`, headers: bearer(key) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ limit: 20, fields: ['a', 'b'] });
    }
  });

  it.each([
    [{}, 'missing_required_parameter', 'name'],
    [{ name: 12, budget: { micros: 2_000_000 } }, 'invalid_type', 'name'],
    [{ name: 'abc' }, 'missing_required_parameter', 'budget'],
    [{ name: 'abc', budget: { micros: 10 } }, 'integer_below_min_value', 'budget.micros'],
    [{ name: 'abc', budget: { micros: 2_000_000 }, extra: true }, 'unknown_parameter', 'extra'],
    [[1, 2], 'invalid_type', null],
  ])('body %j -> 400 %s', async (payload, code, param) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/test/things', headers: bearer(key), payload: payload as object });
    await expectError(res, 400, 'invalid_request_error', code, param);
  });

  it.each(['/v1/%zz', '/v1/ad_account/%E0%A4%A'])('a malformed URL %s is a 400 with the envelope', async (url) => {
    await expectError(await t.app.inject({ url, headers: bearer(key) }), 400, 'invalid_request_error', 'invalid_value');
  });

  it('a route without query parameters refuses them', async () => {
    await expectError(await t.app.inject({ url: '/v1/ad_account?x=1', headers: bearer(key) }), 400, 'invalid_request_error', 'unknown_parameter', 'x');
  });

  it('an unexpected failure is a generic 500; the details stay in the log', async () => {
    const res = await t.app.inject({ url: '/v1/test/boom', headers: bearer(key) });
    await expectError(res, 500, 'server_error', 'internal_error');
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toContain('secret internals');
  });

  it('successful responses carry x-request-id too, a new one each time', async () => {
    const a = await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) });
    const b = await t.app.inject({ url: '/v1/ad_account', headers: { ...bearer(key), 'x-request-id': 'req_spoofed' } });
    expect(a.statusCode).toBe(200);
    expect(a.headers['x-request-id']).toMatch(/^req_/);
    expect(b.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
    expect(b.headers['x-request-id']).not.toBe('req_spoofed');
  });
});

describe('over real HTTP', () => {
  const get = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(baseUrl + path, init);
    return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  };

  it('answers the same envelope on the wire', async () => {
    await expectError(await get('/v1/ad_account'), 401, 'authentication_error', 'missing_api_key');
    await expectError(await get('/v1/ad_account', { method: 'PATCH', headers: bearer(key) }), 405, 'invalid_request_error', 'method_not_allowed');
    await expectError(
      await get('/v1/test/things', { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' }, body: 'not json' }),
      400,
      'invalid_request_error',
      'invalid_json',
    );
  });

  it('a POST with an empty JSON body counts as no body', async () => {
    const res = await get('/v1/ad_account/brand', { method: 'POST', headers: { ...bearer(key), 'content-type': 'application/json' } });
    // The brand route needs a field, so the empty body reaches validation instead of failing as JSON.
    await expectError(res, 400, 'invalid_request_error', 'missing_required_parameter', 'name');
  });
});
