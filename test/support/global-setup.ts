import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { findOnPath, redisAnswers, startEmbeddedRedis, type RedisHandle } from '../../src/runtime/redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let embedded: RedisHandle | undefined;
let embeddedDir: string | undefined;

/**
 * Integration tests need a real Redis: REDIS_URL, else 127.0.0.1:6379, else a
 * redis-server started here on a free port. Without any, fail with the fix.
 */
export async function setup(project: TestProject): Promise<void> {
  const candidates = [process.env['REDIS_URL'], 'redis://127.0.0.1:6379'].filter((u): u is string => !!u);
  for (const url of candidates) {
    if (await redisAnswers(url)) {
      project.provide('redisUrl', url);
      return;
    }
  }
  const binary = findOnPath('redis-server', process.env['PATH']);
  if (!binary) {
    throw new Error('The tests need Redis: set REDIS_URL, run one on 127.0.0.1:6379, or install redis-server (apt-get install redis-server).');
  }
  embeddedDir = mkdtempSync(join(tmpdir(), 'adsvc-test-redis-'));
  embedded = await startEmbeddedRedis(binary, embeddedDir, quiet);
  project.provide('redisUrl', embedded.url);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
}
