import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

/** Keyset list pages (shared by every list endpoint), exercised on event settings. */
let t: TestApp;
let key: string;
const ids: string[] = []; // in creation order

interface Page {
  data: { id: string }[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

const page = async (qs: string): Promise<Page> => {
  const res = await t.app.inject({ url: `/v1/conversions/event_settings?${qs}`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page;
};

beforeAll(async () => {
  t = await startTestApp();
  ({ key } = await makeAccount(t));
  for (let i = 0; i < 7; i++) {
    const res = await t.app.inject({ method: 'POST', url: '/v1/conversions/event_settings', headers: bearer(key), payload: { name: `s${i}`, event_type: 'lead_created' } });
    ids.push(res.json().id);
  }
});
afterAll(() => t.close());

async function walk(order: 'asc' | 'desc', limit: number): Promise<string[]> {
  const seen: string[] = [];
  let qs = `order=${order}&limit=${limit}`;
  for (;;) {
    const p = await page(qs);
    seen.push(...p.data.map((d) => d.id));
    expect(p.first_id).toBe(p.data[0]?.id ?? null);
    expect(p.last_id).toBe(p.data.at(-1)?.id ?? null);
    if (!p.has_more) return seen;
    qs = `order=${order}&limit=${limit}&after=${p.last_id}`;
  }
}

describe('list pagination', () => {
  it('defaults to newest first, 20 a page', async () => {
    const p = await page('');
    expect(p.data.map((d) => d.id)).toEqual([...ids].reverse());
    expect(p.has_more).toBe(false);
  });

  it.each([1, 2, 3, 7, 8])('walks every item exactly once with after (limit %i)', async (limit) => {
    expect(await walk('desc', limit)).toEqual([...ids].reverse());
    expect(await walk('asc', limit)).toEqual(ids);
  });

  it('goes back with before, in list order', async () => {
    const p = await page(`order=asc&limit=2&before=${ids[5]}`);
    expect(p.data.map((d) => d.id)).toEqual([ids[3], ids[4]]);
    expect(p.has_more).toBe(true);
    const start = await page(`order=asc&limit=5&before=${ids[2]}`);
    expect(start.data.map((d) => d.id)).toEqual([ids[0], ids[1]]);
    expect(start.has_more).toBe(false);
    const desc = await page(`limit=2&before=${ids[1]}`);
    expect(desc.data.map((d) => d.id)).toEqual([ids[3], ids[2]]);
  });

  it('an empty page has null ids', async () => {
    const p = await page(`order=asc&after=${ids[6]}`);
    expect(p).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
  });

  it('stays stable while items are inserted between pages', async () => {
    const first = await page('order=asc&limit=3');
    await t.app.inject({ method: 'POST', url: '/v1/conversions/event_settings', headers: bearer(key), payload: { name: 'late', event_type: 'lead_created' } });
    const second = await page(`order=asc&limit=3&after=${first.last_id}`);
    expect([...first.data, ...second.data].map((d) => d.id)).toEqual(ids.slice(0, 6));
  });

  it.each([
    ['limit=0', 'integer_below_min_value', 'limit'],
    ['limit=501', 'integer_above_max_value', 'limit'],
    ['limit=abc', 'invalid_type', 'limit'],
    ['order=sideways', 'invalid_value', 'order'],
    ['after=evset_x&before=evset_y', 'invalid_value', 'before'],
    ['after=evset_unknown', 'invalid_value', 'after'],
  ])('%s -> 400 %s', async (qs, code, param) => {
    const res = await t.app.inject({ url: `/v1/conversions/event_settings?${qs}`, headers: bearer(key) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('names the value a query integer could not be read from', async () => {
    for (const [sent, shown] of [
      ['1.5', '"1.5"'],
      ['x'.repeat(60), `"${'x'.repeat(40)}..."`],
    ]) {
      const res = await t.app.inject({ url: `/v1/conversions/event_settings?limit=${sent}`, headers: bearer(key) });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.message).toBe(`Invalid type for limit: expected number, got string ${shown}.`);
    }
  });
});
