import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { createProductFeed, getProductFeed, listProductFeeds, upsertFeedItems } from '../../domain/product-feeds/product-feeds.js';
import { listQueryShape, pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });

export function productFeedRoutes(app: FastifyInstance, deps: AppDeps): void {
  route(app, { method: 'POST', url: '/product_feeds', body: z.unknown(), idempotent: deps, handler: ({ auth, body }) => createProductFeed(deps, auth.accountId, body) });
  route(app, { method: 'GET', url: '/product_feeds', query: z.object(listQueryShape).strict(), handler: ({ auth, query }) => listProductFeeds(deps, auth.accountId, query) });
  route(app, { method: 'GET', url: '/product_feeds/:id', params: IdParams, handler: ({ auth, params }) => getProductFeed(deps, auth.accountId, params.id) });
  route(app, {
    method: 'POST',
    url: '/product_feeds/:id/items',
    params: IdParams,
    body: z.unknown(),
    // 1000 items of a few KiB each.
    bodyLimit: 8 * 1024 * 1024,
    handler: ({ auth, params, body }) => upsertFeedItems(deps, auth.accountId, params.id, body),
  });
}
