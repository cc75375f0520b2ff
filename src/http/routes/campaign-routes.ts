import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.js';
import { createCampaign, getCampaign, listCampaigns, setCampaignStatus, updateCampaign, type CampaignDeps } from '../../domain/campaigns/campaigns.js';
import { lifecycleRoutes } from '../lifecycle-routes.js';

export function campaignRoutes(app: FastifyInstance, deps: AppDeps): void {
  const d: CampaignDeps = { store: deps.store, clock: deps.clock, audienceMinSize: deps.config.audienceMinSize };
  lifecycleRoutes(app, {
    path: '/campaigns',
    idempotent: deps,
    listFilters: {},
    create: (account, body) => createCampaign(d, account, body),
    list: (account, query) => listCampaigns(d, account, query),
    get: (account, id) => getCampaign(d, account, id),
    update: (account, id, body) => updateCampaign(d, account, id, body),
    setStatus: (account, id, status) => setCampaignStatus(d, account, id, status),
  });
}
