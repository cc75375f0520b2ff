import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyReply, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { getInsights } from '../../src/insights/insights-service.js';
import { QueryCancelledError } from '../../src/store/store.js';
import { untilClientGone } from '../../src/http/plugins/client-gone.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { bearer, makeAccount } from '../support/context.js';

/** Issue 9, overload: 503 service_unavailable_error / server_is_overloaded with Retry-After, recovery, cancelled reads. */

// Runs for many minutes unless interrupted.
const ENDLESS_READ = 'SELECT count(*) AS n FROM range(1000000000000) t(i) WHERE i % 7 = 3';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, tries = 400, everyMs = 50): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(everyMs);
  }
  throw new Error(`gave up waiting: ${what}`);
}

function expectOverloaded(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(503);
  expect(res.json()).toEqual({ error: { message: expect.any(String), type: 'service_unavailable_error', param: null, code: 'server_is_overloaded' } });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(String(res.headers['retry-after'])).toMatch(/^\d+$/);
  expect(res.headers['x-ratelimit-remaining-requests']).toMatch(/^\d+$/);
}

/** The endless read as a cancellable request runs it, telling `ended` how the handler's work ended. */
function endlessRead(app: TestApp, reply: FastifyReply, ended: (how: 'resolved' | 'rejected') => void) {
  return untilClientGone(reply, (signal) => app.store.all(ENDLESS_READ, [], { signal })).then(
    (out) => {
      ended('resolved');
      return out;
    },
    (err: unknown) => {
      ended('rejected');
      throw err;
    },
  );
}

/** A real client (not inject) sending GET `path` with a new account's key, so the test can make it go away. */
async function requestOverLoopback(app: TestApp, path: string): Promise<{ key: string; destroy(): void }> {
  const { key } = await makeAccount(app);
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.app.server.address() as AddressInfo;
  const client = httpRequest({ host: '127.0.0.1', port, path, headers: bearer(key) });
  client.on('error', () => undefined);
  client.end();
  return { key, destroy: () => client.destroy() };
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('overload shedding', () => {
  it('too many DuckDB reads in flight: 503 until the read ends; a client that goes away cancels its read', async () => {
    let ended: 'resolved' | 'rejected' | undefined;
    let app!: TestApp;
    app = await startTestApp({
      env: { ADSVC_OVERLOAD_MAX_QUERIES_IN_FLIGHT: '1' },
      extraRoutes: (v1) => {
        v1.get('/test/endless', async (_request, reply) => endlessRead(app, reply, (how) => (ended = how)));
      },
    });
    t = app;
    const client = await requestOverLoopback(app, '/v1/test/endless');
    await until('the endless read to start', () => app.store.readsInFlight >= 1);

    expectOverloaded(await app.app.inject({ url: '/v1/ad_account', headers: bearer(client.key) }));

    // The client goes away: DuckDB interrupts the read (otherwise it would run for many minutes).
    client.destroy();
    await until('the read to be interrupted', () => app.store.readsInFlight === 0);
    await until('the handler to end', () => ended !== undefined);
    // Cancelled, not failed: no error reaches the error handler (no 500 in the log).
    expect(ended).toBe('resolved');

    expect((await app.app.inject({ url: '/v1/ad_account', headers: bearer(client.key) })).statusCode).toBe(200);
  });

  it('a client that left before its read began still cancels it', async () => {
    // The request is held before the read until the client has gone and the server has seen it go, as when
    // the client leaves while its request is still being authenticated: the close event is then past.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held: FastifyReply | undefined;
    let ended: 'resolved' | 'rejected' | undefined;
    let app!: TestApp;
    app = await startTestApp({
      extraRoutes: (v1) => {
        v1.get('/test/late', async (_request, reply) => {
          held = reply;
          await gate;
          return endlessRead(app, reply, (how) => (ended = how));
        });
      },
    });
    t = app;
    const client = await requestOverLoopback(app, '/v1/test/late');
    await until('the request to reach its handler', () => held !== undefined);
    client.destroy();
    await until('the server to see the client go', () => held?.raw.destroyed === true);
    release();
    await until('the handler to end', () => ended !== undefined);
    expect(ended).toBe('resolved');
    expect(app.store.readsInFlight).toBe(0);
  });

  it('the insights pipeline hands its signal to the page read', async () => {
    t = await startTestApp();
    const { accountId } = await makeAccount(t);
    const scope = { level: 'ad_account' as const, id: null };
    expect((await getInsights(t, accountId, scope, {})).object).toBe('list');
    await expect(getInsights(t, accountId, scope, {}, AbortSignal.abort())).rejects.toBeInstanceOf(QueryCancelledError);
  });

  it('a saturated event loop: 503 with Retry-After while it lasts, then it recovers by itself', async () => {
    t = await startTestApp({
      env: { ADSVC_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '50' },
      extraRoutes: (v1) => {
        v1.get('/test/block', async () => {
          // Synchronous work the loop cannot interleave: the saturation the monitor must see.
          const end = Date.now() + 400;
          while (Date.now() < end);
          return { blocked: true };
        });
      },
    });
    const app = t;
    const { key } = await makeAccount(app);
    let blocking = true;
    const saturate = (async () => {
      for (let i = 0; i < 40 && blocking; i++) {
        expect([200, 503]).toContain((await app.app.inject({ url: '/v1/test/block', headers: bearer(key) })).statusCode);
        await sleep(20);
      }
    })();
    const seen: number[] = [];
    try {
      await until('a 503 while the loop is saturated', async () => {
        const res = await app.app.inject({ url: '/v1/ad_account', headers: bearer(key) });
        if (res.statusCode === 503) expectOverloaded(res);
        seen.push(res.statusCode);
        return res.statusCode === 503;
      }, 400, 25);
    } finally {
      blocking = false;
      await saturate;
    }
    await until('recovery', async () => {
      const res = await app.app.inject({ url: '/v1/ad_account', headers: bearer(key) });
      seen.push(res.statusCode);
      return res.statusCode === 200;
    }, 400, 25);
    expect(seen.filter((s) => s !== 503 && s !== 200)).toEqual([]);
  });
});
