import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { ApiError } from '../../errors/api-error.js';
import { batchLines, MAX_REQUEST_BYTES, submitEvents } from '../../ingest/event-requests.js';
import { getRun, listQuarantine, listRuns, RUN_STATUSES } from '../../ingest/ingest-runs.js';
import { listQueryShape, pathId, queryInt } from '../params.js';
import { mediaTypePattern, utf8Body } from '../plugins/json-body.js';
import { route } from '../route.js';

const IdParams = z.object({ id: pathId });
const queryBool = z.enum(['true', 'false']).transform((s) => s === 'true');

/** POST /events, GET /ingest_runs/{id} and its quarantine (issue 5). */
export async function eventRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  // Its own scope, so only these routes read NDJSON: elsewhere it is a 415, not a string body that fails as "expected object".
  await app.register(async (events) => scopedEventRoutes(events, deps));
}

function scopedEventRoutes(app: FastifyInstance, deps: AppDeps): void {
  // NDJSON bodies arrive as text; JSON bodies go through the shared JSON parser.
  app.addContentTypeParser(mediaTypePattern('application/(x-)?ndjson'), { parseAs: 'string', bodyLimit: MAX_REQUEST_BYTES }, (request, body, done) => {
    const charset = utf8Body(request);
    if (charset !== null) done(charset, undefined);
    else done(null, body);
  });
  // Any other body type: say what POST /events takes (the shared 415 names JSON only).
  app.addContentTypeParser('*', (request, _payload, done) => {
    done(new ApiError('unsupported_media_type', `Unsupported Content-Type ${request.headers['content-type'] ?? '(none)'}; this endpoint takes application/json or application/x-ndjson.`), undefined);
  });
  route(app, {
    method: 'POST',
    url: '/events',
    bodyLimit: MAX_REQUEST_BYTES,
    // A client that retries a batch after a lost answer gets the run it made, not a second run of duplicates.
    idempotent: deps,
    query: z.object({ validate_only: queryBool.optional() }).strict(),
    body: z.unknown(),
    handler: async ({ auth, body, query, request, reply }) => {
      const ndjson = /ndjson/i.test(String(request.headers['content-type'] ?? ''));
      const fromBody = !ndjson && body !== null && typeof body === 'object' ? (body as { validate_only?: unknown }).validate_only : undefined;
      if (fromBody !== undefined && typeof fromBody !== 'boolean') {
        throw new ApiError('invalid_type', 'validate_only must be a boolean.', { param: 'validate_only' });
      }
      const validateOnly = query.validate_only ?? fromBody ?? false;
      const result = await submitEvents({ ...deps, dataDir: deps.config.dataDir }, auth.accountId, batchLines(body, ndjson), validateOnly);
      // A stored batch is accepted for processing (202); a check-only request is answered at once (200).
      if (!validateOnly) reply.status(202);
      return result;
    },
  });
  route(app, {
    method: 'GET',
    url: '/ingest_runs',
    query: z.object({ ...listQueryShape, status: z.enum(RUN_STATUSES).optional() }).strict(),
    handler: ({ auth, query }) => listRuns(deps, auth.accountId, query),
  });
  route(app, { method: 'GET', url: '/ingest_runs/:id', params: IdParams, handler: ({ auth, params }) => getRun(deps, params.id, auth.accountId) });
  route(app, {
    method: 'GET',
    url: '/ingest_runs/:id/quarantine',
    params: IdParams,
    query: z.object({ limit: queryInt(1, 1000).default(100), after_line: queryInt(0, Number.MAX_SAFE_INTEGER).optional() }).strict(),
    handler: ({ auth, params, query }) => listQuarantine(deps, params.id, auth.accountId, query),
  });
}
