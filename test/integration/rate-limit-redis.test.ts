import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../src/domain/rate-limits/memory-backend.js';
import type { LimitCheck } from '../../src/domain/rate-limits/rate-limit-types.js';
import { RedisBackend } from '../../src/domain/rate-limits/redis-backend.js';
import { deleteRedisPrefix, redisUrl, uniquePrefix } from '../support/context.js';

/**
 * The Lua script repeats the in-memory limiter, whose properties the unit
 * tests check over random traces; here both answer the same random traces
 * (windows and growth rule, fake clock) and must agree on every decision.
 */
const T0 = Date.UTC(2026, 10, 22, 12);
// A generous command timeout: this test is about the decisions, and on a busy 2-core machine (the rest of
// the suite runs alongside) a script call once took longer than the service's fail-fast 250 ms.
const redis = new RedisBackend({ url: redisUrl(), commandTimeoutMs: 10_000 });
const prefixes: string[] = [];
afterAll(async () => {
  await redis.close();
  for (const p of prefixes) await deleteRedisPrefix(redisUrl(), p);
});

const step = fc.record({
  gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 70_000 })),
  endpoint: fc.integer({ min: 0, max: 2 }),
  account: fc.integer({ min: 0, max: 1 }),
});

describe('Redis backend agrees with the reference limiter', () => {
  it('on every decision of random traces', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 120 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 8 }), async (steps, perEndpoint, overall, threshold) => {
        const prefix = uniquePrefix();
        prefixes.push(prefix);
        const memory = new MemoryBackend();
        let now = T0 + 50_000;
        for (const [i, s] of steps.entries()) {
          now += s.gap;
          const check: LimitCheck = {
            nowMs: now,
            windowMs: 60_000,
            rules: [
              { key: `${prefix}:w:${s.account}:${s.endpoint}`, limit: perEndpoint },
              { key: `${prefix}:w:${s.account}:*`, limit: overall },
            ],
            growth: { key: `${prefix}:g:${s.account}`, rateRule: 1, threshold, growthPercent: 50, windowMinutes: 1 },
            member: `r${i}`,
          };
          expect(await redis.check(check)).toEqual(memory.decide(check));
        }
      }),
      { numRuns: 40 },
    );
  });
});
