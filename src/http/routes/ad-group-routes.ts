import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.js';
import { createAdGroup, getAdGroup, listAdGroups, setAdGroupStatus, updateAdGroup } from '../../domain/ad-groups/ad-groups.js';
import { lifecycleRoutes } from '../lifecycle-routes.js';
import { pathId } from '../params.js';

export function adGroupRoutes(app: FastifyInstance, deps: AppDeps): void {
  lifecycleRoutes(app, {
    path: '/ad_groups',
    idempotent: deps,
    listFilters: { campaign_id: pathId.optional() },
    create: (account, body) => createAdGroup(deps, account, body),
    list: (account, query) => listAdGroups(deps, account, query),
    get: (account, id) => getAdGroup(deps, account, id),
    update: (account, id, body) => updateAdGroup(deps, account, id, body),
    setStatus: (account, id, status) => setAdGroupStatus(deps, account, id, status),
  });
}
