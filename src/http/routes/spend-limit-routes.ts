import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import {
  createWindow,
  deleteDailyLimit,
  deleteWindow,
  getSpendLimits,
  setDailyLimit,
  updateWindow,
  type SpendLimitDeps,
} from '../../domain/spend-limits/spend-limits.js';
import { pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });

/** Account spending limits; the domain checks the billing permission before reading any body. */
export function spendLimitRoutes(app: FastifyInstance, deps: AppDeps): void {
  const d: SpendLimitDeps = { store: deps.store, clock: deps.clock, ...deps.spendLimitFaults };
  const base = '/ad_account/spend_limit_windows';
  route(app, { method: 'GET', url: base, handler: ({ auth }) => getSpendLimits(d, auth) });
  route(app, { method: 'POST', url: base, body: z.unknown(), handler: ({ auth, body }) => createWindow(d, auth, body) });
  route(app, { method: 'POST', url: `${base}/:id`, params: IdParams, body: z.unknown(), handler: ({ auth, params, body }) => updateWindow(d, auth, params.id, body) });
  route(app, { method: 'POST', url: `${base}/:id/delete`, params: IdParams, handler: ({ auth, params }) => deleteWindow(d, auth, params.id) });
  route(app, { method: 'POST', url: '/ad_account/daily_spend_limit', body: z.unknown(), handler: ({ auth, body }) => setDailyLimit(d, auth, body) });
  route(app, { method: 'POST', url: '/ad_account/daily_spend_limit/delete', body: z.unknown(), handler: ({ auth, body }) => deleteDailyLimit(d, auth, body) });
}
