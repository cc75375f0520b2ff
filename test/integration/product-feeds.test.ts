import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let a: { accountId: string; key: string };
let b: { accountId: string; key: string };
beforeAll(async () => {
  t = await startTestApp();
  a = await makeAccount(t);
  b = await makeAccount(t);
});
afterAll(() => t.close());

const post = (key: string, url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: bearer(key), payload: payload as object });
const item = (item_id: string, extra: object = {}) => ({ item_id, title: `Item ${item_id}`, price: '19.99', availability: 'in_stock', target_url: 'https://shop.example/p/' + item_id, ...extra });

describe('product feeds', () => {
  it('creates, retrieves and lists feeds', async () => {
    const res = await post(a.key, '/v1/product_feeds', { name: 'Main catalog' });
    expect(res.statusCode).toBe(200);
    const feed = res.json();
    expect(feed).toEqual({ id: expect.stringMatching(/^pfeed_/), object: 'product_feed', name: 'Main catalog', item_count: 0, created_at: expect.any(Number), updated_at: expect.any(Number) });
    expect((await t.app.inject({ url: `/v1/product_feeds/${feed.id}`, headers: bearer(a.key) })).json()).toMatchObject({ id: feed.id, item_count: 0 });
    const list = (await t.app.inject({ url: '/v1/product_feeds', headers: bearer(a.key) })).json();
    expect(list.data.map((f: { id: string }) => f.id)).toContain(feed.id);
  });

  it('upserts items: creates, then replaces by item_id, all in one transaction', async () => {
    const feed = (await post(a.key, '/v1/product_feeds', { name: 'Upserts' })).json();
    const first = await post(a.key, `/v1/product_feeds/${feed.id}/items`, { items: [item('sku-1'), item('sku-2')] });
    expect(first.json()).toEqual({ object: 'product_feed_item_batch', feed_id: feed.id, created: 2, updated: 0 });
    const second = await post(a.key, `/v1/product_feeds/${feed.id}/items`, { items: [item('sku-2', { price: '17.50', brand: 'Acme' }), item('sku-3')] });
    expect(second.json()).toEqual({ object: 'product_feed_item_batch', feed_id: feed.id, created: 1, updated: 1 });
    const rows = await t.store.all('SELECT item_id, price, brand FROM product_feed_items WHERE feed_id = $f ORDER BY item_id', { f: feed.id });
    expect(rows).toEqual([
      { item_id: 'sku-1', price: '19.99', brand: null },
      { item_id: 'sku-2', price: '17.50', brand: 'Acme' },
      { item_id: 'sku-3', price: '19.99', brand: null },
    ]);
    expect((await t.app.inject({ url: `/v1/product_feeds/${feed.id}`, headers: bearer(a.key) })).json().item_count).toBe(3);
    // A batch with one bad item stores nothing.
    const bad = await post(a.key, `/v1/product_feeds/${feed.id}/items`, { items: [item('sku-4'), item('sku-5', { price: '-1' })] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_value', param: 'items[1].price' });
    expect(await t.store.get('SELECT count(*) AS n FROM product_feed_items WHERE feed_id = $f', { f: feed.id })).toEqual({ n: 3 });
  });

  it.each([
    [{}, 'missing_required_parameter', 'items'],
    [{ items: [] }, 'array_below_min_length', 'items'],
    [{ items: [item('x'), item('x')] }, 'invalid_value', 'items[1].item_id'],
    [{ items: [item('x', { availability: 'maybe' })] }, 'invalid_value', 'items[0].availability'],
    [{ items: [item('x', { target_url: 'javascript:alert(1)' })] }, 'invalid_value', 'items[0].target_url'],
    [{ items: [item('x', { colour: 'red' })] }, 'unknown_parameter', 'items[0].colour'],
    [{ items: Array.from({ length: 1001 }, (_, i) => ({ item_id: `i${i}` })) }, 'array_above_max_length', 'items'],
  ])('refuses %#: %s at %s', async (payload, code, param) => {
    const feed = (await post(a.key, '/v1/product_feeds', { name: 'Bad' })).json();
    const res = await post(a.key, `/v1/product_feeds/${feed.id}/items`, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it("keeps feeds to their account", async () => {
    const feed = (await post(a.key, '/v1/product_feeds', { name: 'Private' })).json();
    expect((await t.app.inject({ url: `/v1/product_feeds/${feed.id}`, headers: bearer(b.key) })).statusCode).toBe(404);
    const res = await post(b.key, `/v1/product_feeds/${feed.id}/items`, { items: [item('x')] });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('resource_missing');
    const list = (await t.app.inject({ url: '/v1/product_feeds?limit=500', headers: bearer(b.key) })).json();
    expect(list.data.map((f: { id: string }) => f.id)).not.toContain(feed.id);
  });
});
