import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { OverloadGate, type OverloadLimits } from '../../domain/rate-limits/overload-gate.js';
import { ApiError } from '../../errors/api-error.js';

/**
 * Sheds requests with 503 `service_unavailable_error` / `server_is_overloaded`
 * and `Retry-After` while the process is saturated, rather than letting them
 * queue until clients time out (spec: Errors, platform rate errors).
 * Hand-written rather than @fastify/under-pressure: besides event loop delay
 * and heap, it reads DuckDB reads in flight on every request, and the
 * decision lives in a small class the unit tests drive with fake samples.
 */
export interface OverloadOptions {
  limits: OverloadLimits;
  /** DuckDB reads running or queued (Store.readsInFlight). */
  queriesInFlight: () => number;
  sampleIntervalMs?: number;
}

/** Seconds a shed client waits at least; a sample or two later the process has either recovered or sheds again. */
export const OVERLOAD_RETRY_AFTER_S = 2;

const RESOLUTION_MS = 10;

export function installOverloadShedding(app: FastifyInstance, opts: OverloadOptions): void {
  const gate = new OverloadGate(opts.limits);
  if (!gate.enabled) return;
  if (gate.samples) {
    const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    delay.enable();
    const heapLimit = getHeapStatistics().heap_size_limit;
    const timer = setInterval(() => {
      // The histogram's timer fires every RESOLUTION_MS; what it waited beyond that is the loop's delay.
      const eventLoopDelayMs = Number.isNaN(delay.mean) ? 0 : Math.max(0, delay.mean / 1e6 - RESOLUTION_MS);
      delay.reset();
      const heapPercent = (process.memoryUsage().heapUsed / heapLimit) * 100;
      const before = gate.verdict(0);
      gate.record({ eventLoopDelayMs, heapPercent });
      const after = gate.verdict(0);
      if (after !== before) app.log.warn({ reason: after, eventLoopDelayMs, heapPercent }, after === null ? 'load back to normal' : 'overloaded: shedding requests');
    }, opts.sampleIntervalMs ?? 500);
    timer.unref();
    // Start-up work (migrations, connections) is not load: measure from the moment the app is ready.
    app.addHook('onReady', async () => delay.reset());
    app.addHook('onClose', async () => {
      clearInterval(timer);
      delay.disable();
    });
  }
  app.addHook('onRequest', async (request) => {
    const reason = gate.verdict(opts.queriesInFlight());
    if (reason === null) return;
    request.log.debug({ reason }, 'shedding load');
    throw new ApiError('server_is_overloaded', 'The server is temporarily overloaded. Retry after the Retry-After delay, with jitter.', {
      headers: { 'retry-after': String(OVERLOAD_RETRY_AFTER_S) },
    });
  });
}
