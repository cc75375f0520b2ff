import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('rate-limit and overload configuration', () => {
  it('defaults to the issue numbers: 600 a minute per endpoint, 1,200 overall, growth of 50% per 15 minutes past 300', () => {
    const c = loadConfig({});
    expect(c.rateLimits).toEqual({ perEndpoint: 600, overall: 1200, prefix: 'adsvc-ratelimit', growth: { threshold: 300, percent: 50, windowMinutes: 15 } });
    expect(c.overload).toEqual({ maxEventLoopDelayMs: 200, maxHeapPercent: 90, maxQueriesInFlight: 32 });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      ADSVC_RATE_LIMIT_PER_ENDPOINT: '10',
      ADSVC_RATE_LIMIT_OVERALL: '20',
      ADSVC_RATE_LIMIT_GROWTH_THRESHOLD: '5',
      ADSVC_RATE_LIMIT_GROWTH_PERCENT: '25',
      ADSVC_RATE_LIMIT_GROWTH_WINDOW_MINUTES: '30',
      ADSVC_RATE_LIMIT_PREFIX: 'shared:rl',
      ADSVC_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      ADSVC_OVERLOAD_MAX_HEAP_PERCENT: '80',
      ADSVC_OVERLOAD_MAX_QUERIES_IN_FLIGHT: '4',
    });
    expect(c.rateLimits).toEqual({ perEndpoint: 10, overall: 20, prefix: 'shared:rl', growth: { threshold: 5, percent: 25, windowMinutes: 30 } });
    expect(c.overload).toEqual({ maxEventLoopDelayMs: 0, maxHeapPercent: 80, maxQueriesInFlight: 4 });
  });

  it.each([
    ['ADSVC_RATE_LIMIT_PER_ENDPOINT', '0'],
    ['ADSVC_RATE_LIMIT_PER_ENDPOINT', 'lots'],
    ['ADSVC_RATE_LIMIT_OVERALL', '-5'],
    ['ADSVC_RATE_LIMIT_OVERALL', '1.5'],
    ['ADSVC_RATE_LIMIT_GROWTH_PERCENT', '0'],
    ['ADSVC_RATE_LIMIT_GROWTH_WINDOW_MINUTES', '2000'],
    ['ADSVC_RATE_LIMIT_PREFIX', 'no spaces'],
    ['ADSVC_OVERLOAD_MAX_HEAP_PERCENT', '101'],
    ['ADSVC_OVERLOAD_MAX_QUERIES_IN_FLIGHT', 'many'],
  ])('%s=%s is refused with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}: `));
  });
});
