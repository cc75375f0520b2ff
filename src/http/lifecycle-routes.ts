import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { TRANSITIONS, type LifecycleStatus } from '../domain/lifecycle.js';
import type { Store } from '../store/store.js';
import { listQueryShape, pathId } from './params.js';
import { route } from './route.js';

const IdParams = z.object({ id: pathId });

/**
 * The routes every life-cycle resource has (campaigns, ad groups, ads):
 * create (idempotent), list with its filters, retrieve, update, and the
 * activate / pause / archive transitions.
 */
export function lifecycleRoutes<Filters extends z.ZodRawShape>(
  app: FastifyInstance,
  spec: {
    path: string;
    idempotent: { store: Store; clock: Clock };
    listFilters: Filters;
    create(accountId: string, body: unknown): Promise<unknown>;
    list(accountId: string, query: z.output<z.ZodObject<typeof listQueryShape & Filters>>): Promise<unknown>;
    get(accountId: string, id: string): Promise<unknown>;
    update(accountId: string, id: string, body: unknown): Promise<unknown>;
    setStatus(accountId: string, id: string, status: LifecycleStatus): Promise<unknown>;
  },
): void {
  const { path } = spec;
  route(app, { method: 'POST', url: path, body: z.unknown(), idempotent: spec.idempotent, handler: ({ auth, body }) => spec.create(auth.accountId, body) });
  route(app, {
    method: 'GET',
    url: path,
    query: z.object({ ...listQueryShape, ...spec.listFilters }).strict(),
    handler: ({ auth, query }) => spec.list(auth.accountId, query),
  });
  route(app, { method: 'GET', url: `${path}/:id`, params: IdParams, handler: ({ auth, params }) => spec.get(auth.accountId, params.id) });
  route(app, { method: 'POST', url: `${path}/:id`, params: IdParams, body: z.unknown(), handler: ({ auth, params, body }) => spec.update(auth.accountId, params.id, body) });
  for (const [action, status] of Object.entries(TRANSITIONS)) {
    route(app, { method: 'POST', url: `${path}/:id/${action}`, params: IdParams, handler: ({ auth, params }) => spec.setStatus(auth.accountId, params.id, status) });
  }
}
