import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Hostile input at every webhook route that takes a body or a query: the
 * answer is a 2xx or a 4xx with the error envelope, never a 5xx.
 */
let t: TestApp;
let key: string;
let bodies: [string, object][] = [];
let queries: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ env: { ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST: '1' } });
  key = (await makeAccount(t)).key;
  const create = { name: 'Fuzz', url: 'https://hooks.example.com/x', event_types: ['campaign.updated'] };
  const res = await t.app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers: bearer(key), payload: create });
  const id = res.json().id as string;
  bodies = [
    ['/v1/webhook_endpoints', create],
    [`/v1/webhook_endpoints/${id}`, { name: 'Renamed', url: 'https://hooks.example.com/y', event_types: ['ad.review.updated'], status: 'enabled' }],
    [`/v1/webhook_endpoints/${id}/rotate_secret`, { keep_old_secret_active_for_24_hours: true }],
    [`/v1/webhook_endpoints/${id}/test`, { event_type: 'campaign.updated' }],
  ];
  queries = ['/v1/webhook_endpoints', `/v1/webhook_endpoints/${id}/deliveries`];
});
afterAll(() => t.close());

const odd = fc.oneof(
  fc.string(),
  fc.constantFrom('\u0000', '\uD800', "'; DROP TABLE webhook_endpoints; --", 'http://[::1', 'https://', 'https://a b.example', 'javascript:alert(1)', 'file:///etc/passwd', 'x'.repeat(70_000), '__proto__'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const anything: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, odd, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('name', 'url', 'event_types', 'status', 'event_type')), tie('v'), { maxKeys: 4 })),
})).v;

function expectNo5xx(res: { statusCode: number; body: string; json(): unknown }, what: string): void {
  expect(res.statusCode, `${what} -> ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode >= 400) {
    expect(res.json()).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: expect.toSatisfy((p: unknown) => p === null || typeof p === 'string'), code: expect.any(String) } });
  }
}

describe('hostile webhook input', () => {
  it('random bodies, and valid ones with one field replaced: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.boolean(), fc.nat(), anything, async (i, whole, field, value) => {
        const [url, valid] = bodies[i % bodies.length] as [string, object];
        const keys = Object.keys(valid);
        const payload = whole ? value : { ...valid, [keys[field % keys.length] as string]: value };
        const res = await t.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': 'application/json' }, payload: JSON.stringify(payload) ?? 'null' });
        expectNo5xx(res, `${url} ${JSON.stringify(payload)?.slice(0, 200)}`);
      }),
      { numRuns: 500 },
    );
  });

  it('random query strings: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.dictionary(fc.constantFrom('limit', 'after', 'before', 'order', 'status', 'x'), fc.string()), async (i, q) => {
        const url = `${queries[i % queries.length]}?${new URLSearchParams(q).toString()}`;
        expectNo5xx(await t.app.inject({ method: 'GET', url, headers: bearer(key) }), url);
      }),
      { numRuns: 200 },
    );
  });

  it('stores names that look like SQL verbatim', async () => {
    const name = "Robert'); DROP TABLE webhook_endpoints; -- $1";
    const res = await t.app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers: bearer(key), payload: { name, url: 'https://h.example/x', event_types: ['campaign.updated'] } });
    expect(res.json().name).toBe(name);
    expect((await t.app.inject({ url: `/v1/webhook_endpoints/${res.json().id}`, headers: bearer(key) })).json().name).toBe(name);
  });
});
