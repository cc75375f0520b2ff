import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { DELIVERY_STATUSES, listDeliveries } from '../../domain/webhooks/webhook-deliveries.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  type WebhookDeps,
} from '../../domain/webhooks/webhook-endpoints.js';
import { listQueryShape, pathId } from '../params.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });
/** Bodies that may be left out entirely (rotate_secret, test). */
const OptionalBody = z.unknown();

/** Webhook endpoints and their deliveries (spec: Events; COMPAT.md: Webhook endpoints). */
export function webhookRoutes(app: FastifyInstance, deps: AppDeps): void {
  const d: WebhookDeps = { store: deps.store, clock: deps.clock, allowInsecureLocalhost: deps.config.webhookAllowInsecureLocalhost };
  const path = '/webhook_endpoints';
  route(app, { method: 'POST', url: path, body: z.unknown(), idempotent: deps, handler: ({ auth, body }) => createEndpoint(d, auth.accountId, body) });
  route(app, { method: 'GET', url: path, query: z.object(listQueryShape).strict(), handler: ({ auth, query }) => listEndpoints(d, auth.accountId, query) });
  route(app, { method: 'GET', url: `${path}/:id`, params: IdParams, handler: ({ auth, params }) => getEndpoint(d, auth.accountId, params.id) });
  route(app, { method: 'POST', url: `${path}/:id`, params: IdParams, body: z.unknown(), handler: ({ auth, params, body }) => updateEndpoint(d, auth.accountId, params.id, body) });
  route(app, { method: 'POST', url: `${path}/:id/delete`, params: IdParams, handler: ({ auth, params }) => deleteEndpoint(d, auth.accountId, params.id) });
  route(app, {
    method: 'POST',
    url: `${path}/:id/rotate_secret`,
    params: IdParams,
    body: OptionalBody,
    handler: ({ auth, params, body }) => rotateSecret(d, auth.accountId, params.id, body),
  });
  route(app, {
    method: 'POST',
    url: `${path}/:id/test`,
    params: IdParams,
    body: OptionalBody,
    status: 202,
    handler: ({ auth, params, body }) => sendTestEvent(d, auth.accountId, params.id, body),
  });
  route(app, {
    method: 'GET',
    url: `${path}/:id/deliveries`,
    params: IdParams,
    query: z.object({ ...listQueryShape, status: z.enum(DELIVERY_STATUSES).optional() }).strict(),
    handler: async ({ auth, params, query }) => {
      await getEndpoint(d, auth.accountId, params.id);
      return listDeliveries(d.store, auth.accountId, params.id, query);
    },
  });
}
