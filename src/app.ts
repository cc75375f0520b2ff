import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Clock } from './clock.js';
import { ApiError } from './errors/api-error.js';
import type { Config } from './config.js';
import type { BrandReviewScheduler } from './domain/accounts/accounts.js';
import type { AdReviewScheduler } from './domain/ads/ads.js';
import type { AudienceProcessingScheduler } from './domain/audiences/audiences.js';
import type { IngestScheduler } from './ingest/ingest-runs.js';
import { ID_PREFIX, newId } from './ids.js';
import { installAuth } from './http/plugins/auth.js';
import { installErrorHandling, sendError } from './http/plugins/error-handler.js';
import { installBodyEncodings, installJsonBody } from './http/plugins/json-body.js';
import { installOverloadShedding } from './http/plugins/overload.js';
import { installRateLimits } from './http/plugins/rate-limit.js';
import { RateLimiter } from './domain/rate-limits/rate-limiter.js';
import { parseQueryString } from './http/query-string.js';
import { adAccountRoutes } from './http/routes/ad-account-routes.js';
import { adGroupRoutes } from './http/routes/ad-group-routes.js';
import { adRoutes } from './http/routes/ad-routes.js';
import { audienceRoutes } from './http/routes/audience-routes.js';
import { campaignRoutes } from './http/routes/campaign-routes.js';
import { conversionInsightsRoutes } from './http/routes/conversion-insights-routes.js';
import { eventRoutes } from './http/routes/event-routes.js';
import { eventSettingRoutes } from './http/routes/event-setting-routes.js';
import { fileRoutes } from './http/routes/file-routes.js';
import { geoLookupRoutes } from './http/routes/geo-lookup-routes.js';
import { insightsRoutes } from './http/routes/insights-routes.js';
import { productFeedRoutes } from './http/routes/product-feed-routes.js';
import { spendLimitRoutes } from './http/routes/spend-limit-routes.js';
import { webhookRoutes } from './http/routes/webhook-routes.js';
import type { Logger } from './logger.js';
import type { Store } from './store/store.js';

/** Everything the HTTP layer needs, passed in (no globals, no env reads). */
export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  reviews: BrandReviewScheduler;
  audienceJobs: AudienceProcessingScheduler;
  adReviews: AdReviewScheduler;
  ingestJobs: IngestScheduler;
  /**
   * The request limiter (Redis-backed in `serve`, so processes share one
   * budget); the app closes it. Omitted: limits are kept in this process.
   */
  rateLimiter?: RateLimiter;
  /** Fault injection for tests (the 503 path of daily spend-limit mutations). */
  spendLimitFaults?: { afterDailyCommit?: () => void };
}

export interface AppOptions {
  /** The process logger; omitted for a silent app (tests). */
  logger?: Logger;
  /** More routes in the authenticated /v1 scope (tests use it to reach error paths no real route has yet). */
  extraRoutes?: (v1: FastifyInstance) => void;
}

export async function buildApp(deps: AppDeps, options: AppOptions = {}): Promise<FastifyInstance> {
  // Bound once the rate limiter is installed, so refused URLs carry its headers too.
  let onFrameworkError = (err: unknown, request: FastifyRequest, reply: FastifyReply): unknown => sendError(request, reply, err);
  const app = Fastify({
    ...(options.logger === undefined ? { logger: false } : { loggerInstance: options.logger as FastifyBaseLogger }),
    genReqId: () => newId(ID_PREFIX.request),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    routerOptions: {
      querystringParser: parseQueryString,
      ignoreTrailingSlash: true,
    },
    frameworkErrors: (err, request, reply) => onFrameworkError(err, request, reply),
    // Our own hook answers requests that arrive while closing, with the envelope.
    return503OnClosing: false,
  });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Responses finished while closing end their connection, so a keep-alive
  // client cannot hold the shutdown open until its idle timeout.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.header('connection', 'close');
      throw new ApiError('service_unavailable', 'The service is shutting down. Retry shortly.', { headers: { 'retry-after': '1' } });
    }
  });
  installErrorHandling(app);
  installJsonBody(app);
  installBodyEncodings(app);
  // Rate limits before overload shedding, so a 503 carries the rate-limit headers too (spec: Limits).
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const limiter = deps.rateLimiter ?? new RateLimiter(null, deps.config.rateLimits, deps.clock, options.logger ?? silent);
  const rateLimits = installRateLimits(app, limiter, deps.config.rateLimits.growth);
  onFrameworkError = (err, request, reply) =>
    rateLimits.checkClient(request, reply).then(
      () => sendError(request, reply, err),
      (refused: unknown) => sendError(request, reply, refused),
    );
  installOverloadShedding(app, { limits: deps.config.overload, queriesInFlight: () => deps.store.readsInFlight });

  await app.register(
    async (v1) => {
      installAuth(v1, deps.store);
      rateLimits.installAccountLimits(v1);
      adAccountRoutes(v1, deps);
      eventSettingRoutes(v1, deps);
      geoLookupRoutes(v1, deps);
      productFeedRoutes(v1, deps);
      audienceRoutes(v1, deps);
      campaignRoutes(v1, deps);
      adGroupRoutes(v1, deps);
      adRoutes(v1, deps);
      spendLimitRoutes(v1, deps);
      await eventRoutes(v1, deps);
      insightsRoutes(v1, deps);
      conversionInsightsRoutes(v1, deps);
      webhookRoutes(v1, deps);
      await fileRoutes(v1, deps);
      options.extraRoutes?.(v1);
    },
    { prefix: '/v1' },
  );
  return app;
}
