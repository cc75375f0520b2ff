import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { ManualClock } from '../../src/clock.js';
import { RateLimiter } from '../../src/domain/rate-limits/rate-limiter.js';
import { RedisBackend } from '../../src/domain/rate-limits/redis-backend.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, deleteRedisPrefix, makeAccount, redisUrl, uniquePrefix } from '../support/context.js';

/** Issue 9 over HTTP: headers on every response, 429 bodies and Retry-After, shared budgets, Redis down. */

const START = Date.UTC(2026, 10, 22, 12); // on a minute edge
const DURATION = /^(\d+ms|\d+(\.\d+)?s|\d+m\d+s|\d+h\d+m\d+s)$/;

function expectHeaders(res: LightMyRequestResponse): { limit: number; remaining: number; reset: string } {
  const limit = res.headers['x-ratelimit-limit-requests'];
  const remaining = res.headers['x-ratelimit-remaining-requests'];
  const reset = res.headers['x-ratelimit-reset-requests'];
  expect(limit, `limit header on ${res.statusCode}`).toMatch(/^\d+$/);
  expect(remaining, `remaining header on ${res.statusCode}`).toMatch(/^\d+$/);
  expect(reset, `reset header on ${res.statusCode}`).toMatch(DURATION);
  return { limit: Number(limit), remaining: Number(remaining), reset: String(reset) };
}

function expectRefused(res: LightMyRequestResponse, status: number, type: string, code: string): number {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toEqual({ error: { message: expect.any(String), type, param: null, code } });
  const retryAfter = String(res.headers['retry-after']);
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  return Number(retryAfter);
}

const apps: TestApp[] = [];
async function app(env: Record<string, string>, extra: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const t = await startTestApp({ clock: new ManualClock(START), env, ...extra });
  apps.push(t);
  return t;
}
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

describe('headers on every response (spec: Limits, rate-limit response headers)', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp({
      clock: new ManualClock(START),
      env: { ADSVC_RATE_LIMIT_PER_ENDPOINT: '600', ADSVC_RATE_LIMIT_OVERALL: '1200' },
      extraRoutes: (v1) => {
        v1.get('/test/boom', async () => {
          throw new Error('a bug');
        });
      },
    });
    ({ key } = await makeAccount(t));
  });
  afterAll(() => t.close());

  it.each([
    ['200', { url: '/v1/ad_account', auth: true }, 200],
    ['401 without a key', { url: '/v1/ad_account', auth: false }, 401],
    ['404 of an unknown route', { url: '/v1/nothing/here', auth: true }, 404],
    ['404 outside /v1', { url: '/', auth: false }, 404],
    ['404 of an object', { url: '/v1/campaigns/cmpn_missing', auth: true }, 404],
    ['400 of a bad query', { url: '/v1/campaigns?limit=5000', auth: true }, 400],
    ['405 of PUT', { url: '/v1/campaigns', auth: true, method: 'PUT' }, 405],
    ['500 of a bug', { url: '/v1/test/boom', auth: true }, 500],
    ['400 of a malformed URL', { url: '/v1/campaigns/%E0%A4%A', auth: true }, 400],
  ] as [string, { url: string; auth: boolean; method?: 'GET' | 'PUT' }, number][])('%s', async (_name, req, status) => {
    const res = await t.app.inject({ method: req.method ?? 'GET', url: req.url, headers: req.auth ? bearer(key) : {} });
    expect(res.statusCode).toBe(status);
    const h = expectHeaders(res);
    expect(h.limit).toBe(600);
    expect(h.remaining).toBeLessThan(600);
  });

  it('the first request of a fresh window shows the per-endpoint limit less itself, reset in one minute', async () => {
    const fresh = await t.app.inject({ url: '/v1/geo_lookup/search?q=ca', headers: { ...bearer(key) }, remoteAddress: '192.0.2.77' });
    // The account has made other requests, but none to this endpoint; the new address none at all.
    expect(expectHeaders(fresh)).toEqual({ limit: 600, remaining: 599, reset: '1m0s' });
  });
});

describe('past a limit: 429 rate_limit_error / rate_limit_exceeded', () => {
  it('per endpoint, then overall; failed requests count; Retry-After is when the window frees a slot', async () => {
    const t = await app({ ADSVC_RATE_LIMIT_PER_ENDPOINT: '3', ADSVC_RATE_LIMIT_OVERALL: '5' });
    const { key } = await makeAccount(t);
    const get = (url: string) => t.app.inject({ url, headers: bearer(key) });

    // Two 404s and a 200 on one route pattern: the raw ids differ, the endpoint is the same.
    expect((await get('/v1/campaigns/cmpn_a')).statusCode).toBe(404);
    t.clock.advance(10_000);
    expect((await get('/v1/campaigns/cmpn_b')).statusCode).toBe(404);
    t.clock.advance(10_000);
    const third = await get('/v1/campaigns/cmpn_c');
    expect(expectHeaders(third)).toMatchObject({ limit: 3, remaining: 0 });
    const refused = await get('/v1/campaigns/cmpn_d');
    // The oldest of the three leaves the window 40 s later.
    expect(expectRefused(refused, 429, 'rate_limit_error', 'rate_limit_exceeded')).toBe(40);
    expect(expectHeaders(refused)).toEqual({ limit: 3, remaining: 0, reset: '40s' });

    // Another endpoint has its own 3, but only 2 remain overall.
    expect((await get('/v1/campaigns')).statusCode).toBe(200);
    expect(expectHeaders(await get('/v1/ad_account'))).toMatchObject({ limit: 5, remaining: 0 });
    expectRefused(await get('/v1/ad_groups'), 429, 'rate_limit_error', 'rate_limit_exceeded');

    // Refused requests used no budget: after Retry-After the request goes through.
    t.clock.advance(40_000);
    expect((await get('/v1/campaigns/cmpn_d')).statusCode).toBe(404);
  });

  it('per client IP, for callers without a key too, and per account across addresses', async () => {
    const t = await app({ ADSVC_RATE_LIMIT_PER_ENDPOINT: '2', ADSVC_RATE_LIMIT_OVERALL: '100' });
    const a = await makeAccount(t, { name: 'A' });
    const b = await makeAccount(t, { name: 'B' });
    const from = (ip: string, key?: string) => t.app.inject({ url: '/v1/ad_account', headers: key === undefined ? {} : bearer(key), remoteAddress: ip });

    expect((await from('198.51.100.1')).statusCode).toBe(401);
    expect((await from('198.51.100.1')).statusCode).toBe(401);
    expectRefused(await from('198.51.100.1'), 429, 'rate_limit_error', 'rate_limit_exceeded');
    // The same address with a valid key is still over its address limit.
    expectRefused(await from('198.51.100.1', a.key), 429, 'rate_limit_error', 'rate_limit_exceeded');

    expect((await from('198.51.100.2', a.key)).statusCode).toBe(200);
    expect((await from('198.51.100.3', a.key)).statusCode).toBe(200);
    // Account A has used its 2 from two addresses; a third address does not help it.
    expectRefused(await from('198.51.100.4', a.key), 429, 'rate_limit_error', 'rate_limit_exceeded');
    expect((await from('198.51.100.4', b.key)).statusCode).toBe(200);
  });
});

describe('growth rule: 429 rate_limit_error / slow_down', () => {
  it('refuses an account whose rate jumps past the threshold, inside its per-minute limits; a minute later it may go on', async () => {
    const t = await app({ ADSVC_RATE_LIMIT_GROWTH_THRESHOLD: '4', ADSVC_RATE_LIMIT_GROWTH_PERCENT: '50', ADSVC_RATE_LIMIT_GROWTH_WINDOW_MINUTES: '15' });
    const { key } = await makeAccount(t);
    t.clock.advance(30_000);
    for (let i = 0; i < 4; i++) expect((await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) })).statusCode).toBe(200);
    const res = await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) });
    // The last minute holds 4, the threshold, until the first of them is a minute old.
    expect(expectRefused(res, 429, 'rate_limit_error', 'slow_down')).toBe(60);
    // The per-minute windows are far from full.
    expect(expectHeaders(res).remaining).toBeGreaterThan(1000);
    t.clock.advance(60_000);
    expect((await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) })).statusCode).toBe(200);
  });

  it('a steady rate past the threshold is never refused', async () => {
    const t = await app({ ADSVC_RATE_LIMIT_GROWTH_THRESHOLD: '3', ADSVC_RATE_LIMIT_GROWTH_WINDOW_MINUTES: '2' });
    const { key } = await makeAccount(t);
    // 3 a minute for 10 minutes, then 4 (33% more), then 6 (50% more than 4): all within the rule.
    for (const perMinute of [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 6, 6]) {
      for (let i = 0; i < perMinute; i++) {
        expect((await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) })).statusCode).toBe(200);
        t.clock.advance(Math.floor(60_000 / perMinute));
      }
      t.clock.set(Math.ceil(t.clock.nowMs() / 60_000) * 60_000);
    }
  });
});

describe('several processes share one budget through Redis', () => {
  it('two app instances on one Redis and prefix count against one client budget', async () => {
    const prefix = uniquePrefix();
    const env = { ADSVC_RATE_LIMIT_PER_ENDPOINT: '4', ADSVC_RATE_LIMIT_OVERALL: '4', ADSVC_RATE_LIMIT_PREFIX: prefix };
    const one = await app(env);
    const two = await app(env);
    const statuses: number[] = [];
    for (const t of [one, two, one, two, one, two]) statuses.push((await t.app.inject({ url: '/v1/ad_account', remoteAddress: '203.0.113.9' })).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    await deleteRedisPrefix(redisUrl(), prefix);
  });

  it('two limiters on one Redis share an account budget exactly, with concurrent checks', async () => {
    const prefix = uniquePrefix();
    const clock = new ManualClock(START);
    const settings = { perEndpoint: 50, overall: 80, prefix, growth: { threshold: 1_000_000, percent: 50, windowMinutes: 15 } };
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const limiters = [0, 1].map(() => new RateLimiter(new RedisBackend({ url: redisUrl() }), settings, clock, quiet));
    try {
      const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => (limiters[i % 2] as RateLimiter).checkAccount('adacct_shared', i % 3 === 0 ? 'GET /a' : 'GET /b', `r${i}`)));
      const allowed = outcomes.filter((o) => o.verdict === 'allowed').length;
      expect(allowed).toBe(80);
      expect(outcomes.filter((o) => o.verdict === 'rate_limit_exceeded')).toHaveLength(120);
      expect(limiters.every((l) => !l.usingFallback)).toBe(true);
    } finally {
      await Promise.all(limiters.map((l) => l.close()));
      await deleteRedisPrefix(redisUrl(), prefix);
    }
  });
});

describe('Redis unreachable', () => {
  it('limits each process on its own, keeps the headers, never answers 500, and says so once in the log', async () => {
    const warnings: string[] = [];
    const log = { info: () => undefined, warn: (_o: object, msg?: string) => void warnings.push(msg ?? ''), error: () => undefined };
    const clock = new ManualClock(START);
    const settings = { perEndpoint: 3, overall: 100, prefix: uniquePrefix(), growth: { threshold: 1_000_000, percent: 50, windowMinutes: 15 } };
    // Nothing listens on port 1.
    const rateLimiter = new RateLimiter(new RedisBackend({ url: 'redis://127.0.0.1:1' }), settings, clock, log);
    const t = await app({}, { clock, rateLimiter });
    const { key } = await makeAccount(t);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await t.app.inject({ url: '/v1/ad_account', headers: bearer(key) });
      statuses.push(res.statusCode);
      expectHeaders(res);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(rateLimiter.usingFallback).toBe(true);
    expect(warnings.filter((w) => w.includes('Redis unavailable'))).toHaveLength(1);
  });
});
