import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { durationText, retryAfterSeconds } from '../../domain/rate-limits/duration-text.js';
import type { RateLimiter, RateLimitOutcome } from '../../domain/rate-limits/rate-limiter.js';
import { ApiError } from '../../errors/api-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tightest window seen so far for this request (client IP, then account). */
    rateWindow: RateLimitOutcome['tightest'];
  }
}

type Window = NonNullable<RateLimitOutcome['tightest']>;

/** An endpoint is its method and route pattern, never the raw URL, so ids and query strings do not split a budget. */
export const endpointOf = (request: FastifyRequest): string => `${request.method} ${request.routeOptions.url ?? '(unmatched)'}`;

/** The window closer to its limit wins the headers. */
function tighter(a: Window | null | undefined, b: Window | null): Window | null {
  if (a === null || a === undefined) return b;
  if (b === null) return a;
  return b.remaining < a.remaining || (b.remaining === a.remaining && b.limit < a.limit) ? b : a;
}

/** Spec: Limits, "Rate-limit response headers". */
function setHeaders(reply: FastifyReply, w: Window): void {
  reply.header('x-ratelimit-limit-requests', String(w.limit));
  reply.header('x-ratelimit-remaining-requests', String(w.remaining));
  reply.header('x-ratelimit-reset-requests', durationText(w.resetMs));
}

function apply(request: FastifyRequest, reply: FastifyReply, outcome: RateLimitOutcome, growthText: string): void {
  request.rateWindow = tighter(request.rateWindow, outcome.tightest);
  if (request.rateWindow !== null) setHeaders(reply, request.rateWindow);
  if (outcome.verdict === 'allowed') return;
  const seconds = retryAfterSeconds(outcome.retryAfterMs);
  const headers = { 'retry-after': String(seconds) };
  if (outcome.verdict === 'slow_down') {
    throw new ApiError('slow_down', `Your request rate grew too fast (${growthText}). Retry after ${seconds}s, then raise the rate gradually.`, { headers });
  }
  const limit = outcome.tightest?.limit;
  throw new ApiError('rate_limit_exceeded', `Rate limit reached${limit === undefined ? '' : ` (${limit} requests a minute)`}. Retry after ${seconds}s.`, { headers });
}

export interface RateLimitHooks {
  /** Installs the per-account check in an authenticated scope, after its auth hook. */
  installAccountLimits(scope: FastifyInstance): void;
  /** The per-client check for requests Fastify refuses before any hook runs (a malformed URL); throws a 429. */
  checkClient(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/**
 * Per-client-IP limits on every request (so 401s and unknown routes count
 * and carry the headers too), as an onRequest hook of the root instance.
 * Every request the hook admits counts, whatever its outcome (spec: Errors,
 * "Failed requests still count"); a refused one does not, so a client that
 * waits `Retry-After` is admitted.
 */
export function installRateLimits(app: FastifyInstance, limiter: RateLimiter, growth: { percent: number; windowMinutes: number }): RateLimitHooks {
  const growthText = `at most ${growth.percent}% more every ${growth.windowMinutes} minutes`;
  const checkClient = async (request: FastifyRequest, reply: FastifyReply): Promise<void> =>
    apply(request, reply, await limiter.checkClient(request.ip, endpointOf(request), request.id), growthText);
  app.decorateRequest('rateWindow', null);
  app.addHook('onRequest', checkClient);
  app.addHook('onClose', async () => limiter.close());
  return {
    checkClient,
    installAccountLimits(scope) {
      scope.addHook('onRequest', async (request, reply) => {
        if (request.auth === null) return;
        apply(request, reply, await limiter.checkAccount(request.auth.accountId, endpointOf(request), request.id), growthText);
      });
    },
  };
}
