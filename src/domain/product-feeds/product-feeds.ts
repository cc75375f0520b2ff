import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { newId } from '../../ids.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../../store/list-page.js';
import { sql } from '../../store/sql-loader.js';
import { sqlList, type Row, type Store } from '../../store/store.js';
import { httpUrl, label } from '../text.js';

/**
 * Product feeds: the catalog behind product-feed campaigns and the product
 * segment of reports. Items are upserted in batches by `item_id`.
 */
export const PRODUCT_FEED_PREFIX = 'pfeed_';
export const MAX_ITEMS_PER_REQUEST = 1000;
export const AVAILABILITY = ['in_stock', 'out_of_stock', 'preorder', 'backorder'] as const;

export const CreateFeedInput = z.object({ name: label(1, 256) }).strict();

const optionalText = (max: number) => z.string().max(max).nullish();

export const FeedItemInput = z
  .object({
    item_id: label(1, 256),
    title: optionalText(256),
    description: optionalText(5000),
    body: optionalText(1000),
    target_url: httpUrl().nullish(),
    image_url: httpUrl().nullish(),
    brand: optionalText(256),
    seller_name: optionalText(256),
    // Decimal text in account currency units, as `19.99`: no float rounding on the way.
    price: z
      .string()
      .regex(/^\d{1,15}(\.\d{1,6})?$/, 'must be a nonnegative decimal string such as "19.99"')
      .nullish(),
    availability: z.enum(AVAILABILITY).nullish(),
  })
  .strict();

export const UpsertItemsInput = z
  .object({ items: z.array(FeedItemInput).min(1).max(MAX_ITEMS_PER_REQUEST) })
  .strict()
  .superRefine((v, ctx) => {
    const seen = new Map<string, number>();
    v.items.forEach((item, i) => {
      const first = seen.get(item.item_id);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['items', i, 'item_id'], message: `'${item.item_id}' repeats items[${first}]` });
      } else seen.set(item.item_id, i);
    });
  });

const FeedRecord = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  name: z.string(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
  item_count: z.number().int().optional(),
});
type FeedRecord = z.infer<typeof FeedRecord>;

export interface ProductFeed {
  id: string;
  object: 'product_feed';
  name: string;
  item_count?: number;
  created_at: number;
  updated_at: number;
}

const toWire = (r: FeedRecord): ProductFeed => ({
  id: r.id,
  object: 'product_feed',
  name: r.name,
  ...(r.item_count === undefined ? {} : { item_count: r.item_count }),
  created_at: Math.floor(r.created_at_ms / 1000),
  updated_at: Math.floor(r.updated_at_ms / 1000),
});

const parseFeed = (row: Row | undefined, id: string): FeedRecord => {
  if (!row) throw ApiError.notFound('product feed', id);
  return FeedRecord.parse(row);
};

interface Deps {
  store: Store;
  clock: Clock;
}

export async function createProductFeed(deps: Deps, accountId: string, raw: unknown): Promise<ProductFeed> {
  const input = parseOrThrow(CreateFeedInput, raw ?? {});
  const [row] = await deps.store.write(sql('product-feed-insert'), {
    id: newId(PRODUCT_FEED_PREFIX),
    account: accountId,
    name: input.name,
    now_ms: deps.clock.nowMs(),
  });
  return toWire({ ...parseFeed(row, 'new'), item_count: 0 });
}

export async function getProductFeed(deps: Pick<Deps, 'store'>, accountId: string, id: string): Promise<ProductFeed> {
  return toWire(parseFeed(await deps.store.get(sql('product-feed-get'), { id, account: accountId }), id));
}

/** True when the feed exists in the account (campaigns check `product_feed_id` with it). */
export async function productFeedExists(deps: Pick<Deps, 'store'>, accountId: string, id: string): Promise<boolean> {
  return (await deps.store.get(sql('product-feed-get'), { id, account: accountId })) !== undefined;
}

export async function listProductFeeds(deps: Pick<Deps, 'store'>, accountId: string, params: ListParams): Promise<ListEnvelope<ProductFeed>> {
  const { rows, hasMore } = await listPage(deps.store, 'product_feeds', accountId, params);
  return toListEnvelope(
    rows.map((r) => toWire(FeedRecord.parse(r))),
    hasMore,
  );
}

export interface UpsertResult {
  object: 'product_feed_item_batch';
  feed_id: string;
  created: number;
  updated: number;
}

/** Inserts or replaces up to 1000 items in one transaction: all of them, or none. */
export async function upsertFeedItems(deps: Deps, accountId: string, feedId: string, raw: unknown): Promise<UpsertResult> {
  parseFeed(await deps.store.get(sql('product-feed-get'), { id: feedId, account: accountId }), feedId);
  const input = parseOrThrow(UpsertItemsInput, raw ?? {});
  const now = deps.clock.nowMs();
  return deps.store.transaction(async (tx) => {
    const existing = new Set(
      (await tx.all(sql('product-feed-items-existing'), { feed_id: feedId, item_ids: sqlList(input.items.map((i) => i.item_id)) })).map((r) =>
        String(r['item_id']),
      ),
    );
    for (const item of input.items) {
      await tx.run(sql('product-feed-item-upsert'), {
        feed_id: feedId,
        item_id: item.item_id,
        account: accountId,
        title: item.title ?? null,
        description: item.description ?? null,
        body: item.body ?? null,
        target_url: item.target_url ?? null,
        image_url: item.image_url ?? null,
        brand: item.brand ?? null,
        seller_name: item.seller_name ?? null,
        price: item.price ?? null,
        availability: item.availability ?? null,
        now_ms: now,
      });
    }
    await tx.run(sql('product-feed-touch'), { id: feedId, now_ms: now });
    const updated = input.items.filter((i) => existing.has(i.item_id)).length;
    return { object: 'product_feed_item_batch', feed_id: feedId, created: input.items.length - updated, updated };
  });
}
