import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.js';

/** GET /geo_lookup/search (being built). */
export function geoLookupRoutes(_app: FastifyInstance, _deps: AppDeps): void {}
