import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { createCampaign, getCampaign, listCampaigns, setCampaignStatus, updateCampaign, type CampaignDeps } from '../../domain/campaigns/campaigns.js';
import { TRANSITIONS } from '../../domain/lifecycle.js';
import { listQueryShape, pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });

export function campaignRoutes(app: FastifyInstance, deps: AppDeps): void {
  const d: CampaignDeps = { store: deps.store, clock: deps.clock, audienceMinSize: deps.config.audienceMinSize };
  route(app, { method: 'POST', url: '/campaigns', body: z.unknown(), idempotent: deps, handler: ({ auth, body }) => createCampaign(d, auth.accountId, body) });
  route(app, { method: 'GET', url: '/campaigns', query: z.object(listQueryShape).strict(), handler: ({ auth, query }) => listCampaigns(d, auth.accountId, query) });
  route(app, { method: 'GET', url: '/campaigns/:id', params: IdParams, handler: ({ auth, params }) => getCampaign(d, auth.accountId, params.id) });
  route(app, { method: 'POST', url: '/campaigns/:id', params: IdParams, body: z.unknown(), handler: ({ auth, params, body }) => updateCampaign(d, auth.accountId, params.id, body) });
  for (const [action, status] of Object.entries(TRANSITIONS)) {
    route(app, { method: 'POST', url: `/campaigns/:id/${action}`, params: IdParams, handler: ({ auth, params }) => setCampaignStatus(d, auth.accountId, params.id, status) });
  }
}
