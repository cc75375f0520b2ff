import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.js';
import { createAd, getAd, listAds, setAdStatus, updateAd } from '../../domain/ads/ads.js';
import { lifecycleRoutes } from '../lifecycle-routes.js';
import { pathId } from '../params.js';

export function adRoutes(app: FastifyInstance, deps: AppDeps): void {
  lifecycleRoutes(app, {
    path: '/ads',
    idempotent: deps,
    listFilters: { ad_group_id: pathId.optional() },
    create: (account, body) => createAd(deps, account, body),
    list: (account, query) => listAds(deps, account, query),
    get: (account, id) => getAd(deps, account, id),
    update: (account, id, body) => updateAd(deps, account, id, body),
    setStatus: (account, id, status) => setAdStatus(deps, account, id, status),
  });
}
