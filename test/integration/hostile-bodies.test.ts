import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeAccount } from '../support/context.js';
import { insertFile } from '../support/files.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Random and hostile bodies at every create and update route: the answer is
 * always a 2xx or a 4xx with the error envelope, never a 5xx.
 */
let t: TestApp;
let key: string;
const valid: Record<string, object> = {};
const routes: string[] = [];

beforeAll(async () => {
  // Fetches of image_url must end quickly if a random string names a reachable-looking host.
  t = await startTestApp({ env: { ADSVC_FETCH_TIMEOUT_MS: '300' } });
  const acct = await makeAccount(t);
  key = acct.key;
  const post = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers: bearer(key), payload });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id as string;
  };
  const campaignBody = { name: 'Fuzz', status: 'paused', budget: { lifetime_spend_limit_micros: 2_000_000 }, targeting: { locations: { include: [{ id: '840' }] } } };
  const campaign = await post('/v1/campaigns', campaignBody);
  const groupBody = { campaign_id: campaign, name: 'Fuzz group', bidding_config: { max_bid_micros: 10 } };
  const group = await post('/v1/ad_groups', groupBody);
  const file = await insertFile(t.store, acct.accountId, null);
  const adBody = { ad_group_id: group, name: 'Fuzz ad', creative: { type: 'chat_card', title: 'Title', body: 'Body', target_url: 'https://x.example', file_id: file } };
  const ad = await post('/v1/ads', adBody);
  const feed = await post('/v1/product_feeds', { name: 'Feed' });
  Object.assign(valid, {
    '/v1/campaigns': campaignBody,
    [`/v1/campaigns/${campaign}`]: { name: 'Renamed', targeting: { platforms: { included: ['ios_app'] } } },
    '/v1/ad_groups': groupBody,
    [`/v1/ad_groups/${group}`]: { name: 'Renamed group' },
    '/v1/ads': adBody,
    [`/v1/ads/${ad}`]: { name: 'Renamed ad' },
    '/v1/conversions/event_settings': { name: 'Goal', event_type: 'order_created' },
    '/v1/product_feeds': { name: 'Feed 2' },
    [`/v1/product_feeds/${feed}/items`]: { items: [{ item_id: 'sku', title: 'Item', price: '1.00' }] },
    '/v1/custom_audiences': { name: 'Aud', file_id: 'file_x', filename: 'a.csv', mimetype: 'text/csv', file_size: 10 },
    '/v1/ad_account/brand': { name: 'Brand' },
    // Loopback is refused before any connection (private fetches are off).
    '/v1/upload': { image_url: 'http://127.0.0.1:9/creative.png', purpose: 'account_favicon' },
  });
  routes.push(...Object.keys(valid));
});
afterAll(() => t.close());

const hostileString = fc.oneof(
  fc.string(),
  fc.constantFrom("'; DROP TABLE campaigns; --", '" OR 1=1 --', '$1', '${name}', '\u0000', '\uD800', 'a'.repeat(100_000), '__proto__', 'constructor', '🚀'.repeat(300)),
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308, -1e308, 2 ** 63, 4_102_444_801, 946_684_799),
);
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'name', 'status', 'budget', 'targeting', 'items')), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** A valid body with one field (at any depth) replaced by something hostile. */
function mutate(body: unknown, path: number[], replacement: unknown): unknown {
  if (path.length === 0 || body === null || typeof body !== 'object') return replacement;
  const entries = Array.isArray(body) ? body.map((v, i) => [String(i), v] as const) : Object.entries(body as Record<string, unknown>);
  if (entries.length === 0) return replacement;
  const [k, v] = entries[(path[0] as number) % entries.length] as readonly [string, unknown];
  const copy: Record<string, unknown> | unknown[] = Array.isArray(body) ? [...body] : { ...(body as Record<string, unknown>) };
  (copy as Record<string, unknown>)[k] = mutate(v, path.slice(1), replacement);
  return copy;
}

async function send(url: string, payload: string): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url, headers: { ...bearer(key), 'content-type': 'application/json' }, payload });
  expect(res.statusCode, `${url} ${payload.slice(0, 300)} -> ${res.body}`).toBeLessThan(500);
  if (res.statusCode >= 400) {
    const body = res.json();
    expect(body).toEqual({ error: { message: expect.any(String), type: expect.any(String), param: expect.toSatisfy((p: unknown) => p === null || typeof p === 'string'), code: expect.any(String) } });
  }
}

describe('hostile bodies', () => {
  it('random JSON anywhere: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), hostileValue, async (i, value) => {
        await send(routes[i % routes.length] as string, JSON.stringify(value) ?? 'null');
      }),
      { numRuns: 400 },
    );
  });

  it('valid bodies with one field made hostile: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), fc.array(fc.nat(), { maxLength: 4 }), hostileValue, async (i, path, value) => {
        const url = routes[i % routes.length] as string;
        await send(url, JSON.stringify(mutate(valid[url], path, value)) ?? 'null');
      }),
      { numRuns: 600 },
    );
  });

  it('raw bytes that are not JSON: 400, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), fc.string(), async (i, text) => {
        await send(routes[i % routes.length] as string, `{${text}`);
      }),
      { numRuns: 100 },
    );
  });

  it('names that look like SQL are stored verbatim and harm nothing', async () => {
    const name = "Robert'); DROP TABLE campaigns; -- $1 ${x}";
    const res = await t.app.inject({ method: 'POST', url: '/v1/campaigns', headers: bearer(key), payload: { ...valid['/v1/campaigns'], name } });
    expect(res.json().name).toBe(name);
    expect((await t.app.inject({ url: `/v1/campaigns/${res.json().id}`, headers: bearer(key) })).json().name).toBe(name);
    expect(await t.store.get('SELECT count(*) > 0 AS ok FROM campaigns')).toEqual({ ok: true });
  });
});
