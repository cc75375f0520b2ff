import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { createAdGroup, getAdGroup, listAdGroups, setAdGroupStatus, updateAdGroup } from '../../domain/ad-groups/ad-groups.js';
import { TRANSITIONS } from '../../domain/lifecycle.js';
import { listQueryShape, pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });

export function adGroupRoutes(app: FastifyInstance, deps: AppDeps): void {
  route(app, { method: 'POST', url: '/ad_groups', body: z.unknown(), idempotent: deps, handler: ({ auth, body }) => createAdGroup(deps, auth.accountId, body) });
  route(app, {
    method: 'GET',
    url: '/ad_groups',
    query: z.object({ ...listQueryShape, campaign_id: pathId.optional() }).strict(),
    handler: ({ auth, query }) => listAdGroups(deps, auth.accountId, query),
  });
  route(app, { method: 'GET', url: '/ad_groups/:id', params: IdParams, handler: ({ auth, params }) => getAdGroup(deps, auth.accountId, params.id) });
  route(app, { method: 'POST', url: '/ad_groups/:id', params: IdParams, body: z.unknown(), handler: ({ auth, params, body }) => updateAdGroup(deps, auth.accountId, params.id, body) });
  for (const [action, status] of Object.entries(TRANSITIONS)) {
    route(app, { method: 'POST', url: `/ad_groups/:id/${action}`, params: IdParams, handler: ({ auth, params }) => setAdGroupStatus(deps, auth.accountId, params.id, status) });
  }
}
