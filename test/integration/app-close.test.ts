import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { route } from '../../src/http/route.js';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp } from '../support/app.js';

describe('closing the app', () => {
  it('lets a request in flight finish before close resolves', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const t = await startTestApp({
      extraRoutes: (v1) =>
        route(v1, {
          method: 'GET',
          url: '/test/slow',
          handler: async () => {
            entered();
            await gate;
            return { done: true };
          },
        }),
    });
    const { key } = await makeAccount(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

    const slow = fetch(`${url}/v1/test/slow`, { headers: bearer(key) });
    await inside;
    let isClosed = false;
    const closed = t.close().then(() => {
      isClosed = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(isClosed).toBe(false);
    release();
    const res = await slow;
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ done: true });
    await closed;
  });
});
