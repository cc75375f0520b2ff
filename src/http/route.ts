import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuthContext } from '../domain/api-keys.js';
import type { Clock } from '../clock.js';
import { IdempotencyKey, withIdempotency } from '../domain/idempotency.js';
import type { Store } from '../store/store.js';
import { parseOrThrow } from '../errors/zod-issues.js';
import { requireAuth } from './plugins/auth.js';

const NoQuery = z.object({}).strict();
const NoBody = z.union([z.undefined(), z.null(), z.object({}).strict()]);

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: AuthContext;
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R> {
  method: 'GET' | 'POST';
  url: string;
  params?: P;
  /** Omitted: the route takes no query parameters and refuses any. */
  query?: Q;
  /** Omitted: the route takes no body (an empty one or `{}` is fine). */
  body?: B;
  status?: number;
  bodyLimit?: number;
  /** Creates: honour `Idempotency-Key` (needs `deps`). */
  idempotent?: { store: Store; clock: Clock };
  handler(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<R>;
}

/**
 * Registers one authenticated route whose params, query and body are checked
 * with zod before the handler (a few lines that call the domain) runs.
 */
export function route<P extends z.ZodType = z.ZodObject, Q extends z.ZodType = typeof NoQuery, B extends z.ZodType = typeof NoBody, R = unknown>(
  app: FastifyInstance,
  spec: RouteSpec<P, Q, B, R>,
): void {
  const paramsSchema = spec.params ?? z.object({});
  const querySchema = spec.query ?? NoQuery;
  const bodySchema = spec.body ?? NoBody;
  app.route({
    method: spec.method,
    url: spec.url,
    ...(spec.bodyLimit === undefined ? {} : { bodyLimit: spec.bodyLimit }),
    handler: async (request, reply) => {
      const auth = requireAuth(request);
      const params = parseOrThrow(paramsSchema, request.params);
      const query = parseOrThrow(querySchema, request.query);
      const body = parseOrThrow(bodySchema, request.body);
      const run = async () => {
        const out = await spec.handler({ params, query, body, auth, request, reply } as RouteInput<z.output<P>, z.output<Q>, z.output<B>>);
        // A handler that set its own status (e.g. 200 for a check-only request on a 202 route) keeps it.
        return { status: reply.statusCode !== 200 ? reply.statusCode : (spec.status ?? 200), body: out };
      };
      const header = request.headers['idempotency-key'];
      if (spec.idempotent === undefined || header === undefined) {
        const out = await run();
        reply.status(out.status);
        return out.body;
      }
      const key = parseOrThrow(IdempotencyKey, Array.isArray(header) ? header[0] : header, ['Idempotency-Key']);
      // A query (POST /events?validate_only=true) is part of the request: the same key without it is another request.
      const hashed = Object.keys(query as object).length === 0 ? request.body : { body: request.body, query };
      const out = await withIdempotency(spec.idempotent, { accountId: auth.accountId, key, route: `${spec.method} ${spec.url}`, body: hashed }, run);
      if (out.replayed) reply.header('idempotent-replayed', 'true');
      reply.status(out.status);
      return out.body;
    },
  });
}
