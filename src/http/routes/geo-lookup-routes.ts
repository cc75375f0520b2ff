import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { searchLocations, type Location } from '../../domain/locations/locations.js';
import { queryInt } from '../params.js';
import { route } from '../route.js';

/** COMPAT.md, Locations: `q` is required, `limit` is 1..100. */
const SearchQuery = z
  .object({
    q: z.string().trim().min(1).max(200),
    limit: queryInt(1, 100).default(20),
  })
  .strict();

export interface GeoLookupResponse {
  query: string;
  count: number;
  results: Location[];
}

/** GET /geo_lookup/search: the bundled location catalog (static data, no store). */
export function geoLookupRoutes(app: FastifyInstance, _deps: AppDeps): void {
  route(app, {
    method: 'GET',
    url: '/geo_lookup/search',
    query: SearchQuery,
    handler: async ({ query }): Promise<GeoLookupResponse> => {
      const results = searchLocations(query.q, query.limit);
      return { query: query.q, count: results.length, results };
    },
  });
}
