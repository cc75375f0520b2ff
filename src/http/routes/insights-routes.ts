import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { getInsights } from '../../insights/insights-service.js';
import { pathId } from '../params.js';
import { untilClientGone } from '../plugins/client-gone.js';
import { route } from '../route.js';

/** GET insights at the account, campaign, ad group and ad scopes; the query is validated by the insights normalizer. */
const AnyQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
const IdParams = z.object({ id: pathId });

export function insightsRoutes(app: FastifyInstance, deps: AppDeps): void {
  route(app, {
    method: 'GET',
    url: '/ad_account/insights',
    query: AnyQuery,
    handler: ({ auth, query, reply }) => untilClientGone(reply, (signal) => getInsights(deps, auth.accountId, { level: 'ad_account', id: null }, query, signal)),
  });
  for (const [path, level] of [
    ['campaigns', 'campaign'],
    ['ad_groups', 'ad_group'],
    ['ads', 'ad'],
  ] as const) {
    route(app, {
      method: 'GET',
      url: `/${path}/:id/insights`,
      params: IdParams,
      query: AnyQuery,
      handler: ({ auth, params, query, reply }) => untilClientGone(reply, (signal) => getInsights(deps, auth.accountId, { level, id: params.id }, query, signal)),
    });
  }
}
