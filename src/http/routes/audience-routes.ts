import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { archiveAudience, createAudience, getAudience, listAudiences } from '../../domain/audiences/audiences.js';
import { listQueryShape, pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });

export function audienceRoutes(app: FastifyInstance, deps: AppDeps): void {
  route(app, { method: 'POST', url: '/custom_audiences', body: z.unknown(), idempotent: deps, handler: ({ auth, body }) => createAudience(deps, auth.accountId, body) });
  route(app, {
    method: 'GET',
    url: '/custom_audiences',
    query: z.object({ ...listQueryShape, intended_use: z.enum(['inclusion', 'exclusion']).optional() }).strict(),
    handler: ({ auth, query }) => listAudiences(deps, auth.accountId, query),
  });
  route(app, { method: 'GET', url: '/custom_audiences/:id', params: IdParams, handler: ({ auth, params }) => getAudience(deps, auth.accountId, params.id) });
  route(app, { method: 'POST', url: '/custom_audiences/:id/archive', params: IdParams, handler: ({ auth, params }) => archiveAudience(deps, auth.accountId, params.id) });
}
