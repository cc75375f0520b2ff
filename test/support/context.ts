import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { databasePath } from '../../src/admin/socket-path.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createAccount } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/api-keys.js';
import { randomToken } from '../../src/ids.js';
import { migrate } from '../../src/store/migrations.js';
import { Store } from '../../src/store/store.js';

export const redisUrl = (): string => inject('redisUrl');

/** A fresh key prefix for BullMQ and anything else a test puts in the shared Redis. */
export const uniquePrefix = (): string => `adsvc-test-${randomToken(10)}`;

export function tempDir(): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), 'adsvc-t-'));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Removes every key under a prefix (tests clean up the Redis they share). */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

export const quietLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Tests run with limits no suite reaches and without overload shedding (a
 * busy CI machine must not turn into 503s); rate-limit and overload tests set
 * their own through `extra`. Each config gets its own rate-limit key space.
 */
export const TEST_LIMITS: Readonly<Record<string, string>> = {
  ADSVC_RATE_LIMIT_PER_ENDPOINT: '10000000',
  ADSVC_RATE_LIMIT_OVERALL: '10000000',
  ADSVC_RATE_LIMIT_GROWTH_THRESHOLD: '10000000',
  ADSVC_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  ADSVC_OVERLOAD_MAX_HEAP_PERCENT: '0',
  ADSVC_OVERLOAD_MAX_QUERIES_IN_FLIGHT: '0',
};

export function testConfig(dataDir: string, extra: Record<string, string> = {}): Config {
  return loadConfig({ ADSVC_DATA_DIR: dataDir, REDIS_URL: redisUrl(), ADSVC_QUEUE_PREFIX: uniquePrefix(), ADSVC_RATE_LIMIT_PREFIX: uniquePrefix(), ...TEST_LIMITS, ...extra });
}

export async function openMigratedStore(dataDir: string, clock: Clock): Promise<Store> {
  const store = await Store.open(databasePath(dataDir));
  await migrate(store, clock);
  return store;
}

export const ALL_FEATURES = ['brand', 'conversion_bidding', 'product_segments', 'zero_impression_products', 'postpaid_invoice'] as const;

/** An account and a key for it, made through the same domain functions the CLI uses. */
export async function makeAccount(
  deps: { store: Store; clock: Clock },
  opts: { enable?: readonly string[]; billing?: boolean; timezone?: string; name?: string } = {},
): Promise<{ accountId: string; key: string }> {
  const account = await createAccount(deps, {
    name: opts.name ?? 'Test Ads',
    url: 'https://www.test.example',
    timezone: opts.timezone ?? 'UTC',
    currency: 'USD',
    enable: [...(opts.enable ?? ALL_FEATURES)],
  });
  const key = await createApiKey(deps, { account: account.id, billing: opts.billing ?? true });
  return { accountId: account.id, key: key.key };
}

export const bearer = (key: string): { authorization: string } => ({ authorization: `Bearer ${key}` });
