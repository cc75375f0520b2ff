import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { createAd, getAd, listAds, setAdStatus, updateAd } from '../../domain/ads/ads.js';
import { TRANSITIONS } from '../../domain/lifecycle.js';
import { listQueryShape, pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });

export function adRoutes(app: FastifyInstance, deps: AppDeps): void {
  route(app, { method: 'POST', url: '/ads', body: z.unknown(), idempotent: deps, handler: ({ auth, body }) => createAd(deps, auth.accountId, body) });
  route(app, {
    method: 'GET',
    url: '/ads',
    query: z.object({ ...listQueryShape, ad_group_id: pathId.optional() }).strict(),
    handler: ({ auth, query }) => listAds(deps, auth.accountId, query),
  });
  route(app, { method: 'GET', url: '/ads/:id', params: IdParams, handler: ({ auth, params }) => getAd(deps, auth.accountId, params.id) });
  route(app, { method: 'POST', url: '/ads/:id', params: IdParams, body: z.unknown(), handler: ({ auth, params, body }) => updateAd(deps, auth.accountId, params.id, body) });
  for (const [action, status] of Object.entries(TRANSITIONS)) {
    route(app, { method: 'POST', url: `/ads/:id/${action}`, params: IdParams, handler: ({ auth, params }) => setAdStatus(deps, auth.accountId, params.id, status) });
  }
}
