import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { getConversionInsights } from '../../conversions/conversion-insights-service.js';
import { route } from '../route.js';

/** POST /conversions/insights; the body is validated by the conversion insights normalizer (src/conversions/request.ts). */
const AnyBody = z.unknown();

export function conversionInsightsRoutes(app: FastifyInstance, deps: AppDeps): void {
  route(app, {
    method: 'POST',
    url: '/conversions/insights',
    body: AnyBody,
    handler: ({ auth, body }) => getConversionInsights(deps, auth.accountId, body),
  });
}
