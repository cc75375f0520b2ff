import { describe, expect, it } from 'vitest';
import { findOnPath, redisAnswers, resolveRedis, RedisUnavailableError } from '../../src/runtime/redis.js';
import { quietLog, redisUrl, tempDir } from '../support/context.js';

/** serve's Redis: REDIS_URL, else 127.0.0.1:6379, else its own redis-server, else a clear error. */
describe('resolveRedis', () => {
  const deadProbe = 'redis://127.0.0.1:1';

  it('uses REDIS_URL when it answers', async () => {
    const dir = tempDir();
    const h = await resolveRedis({ url: redisUrl(), pathVar: '', dataDir: dir.path, log: quietLog });
    expect(h).toMatchObject({ url: redisUrl(), embedded: false });
    dir.cleanup();
  });

  it('fails with how-to-fix text when REDIS_URL does not answer', async () => {
    const dir = tempDir();
    const p = resolveRedis({ url: deadProbe, pathVar: process.env['PATH'], dataDir: dir.path, log: quietLog });
    await expect(p).rejects.toThrow(RedisUnavailableError);
    await expect(p).rejects.toThrow(/apt-get install redis-server/);
    dir.cleanup();
  });

  it('takes the Redis that answers on the probe address', async () => {
    const dir = tempDir();
    const h = await resolveRedis({ url: undefined, probeUrl: redisUrl(), pathVar: '', dataDir: dir.path, log: quietLog });
    expect(h).toMatchObject({ url: redisUrl(), embedded: false });
    dir.cleanup();
  });

  it.skipIf(findOnPath('redis-server', process.env['PATH']) === undefined)(
    'starts its own redis-server with data in the data dir when nothing answers, and stops it',
    async () => {
      const dir = tempDir();
      const h = await resolveRedis({ url: undefined, probeUrl: deadProbe, pathVar: process.env['PATH'], dataDir: dir.path, log: quietLog });
      expect(h.embedded).toBe(true);
      expect(h.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(await redisAnswers(h.url)).toBe(true);
      await h.stop();
      expect(await redisAnswers(h.url)).toBe(false);
      dir.cleanup();
    },
  );

  it('says how to get Redis when there is none to be had', async () => {
    const dir = tempDir();
    const p = resolveRedis({ url: undefined, probeUrl: deadProbe, pathVar: dir.path, dataDir: dir.path, log: quietLog });
    await expect(p).rejects.toThrow(/redis-server is not on PATH.*REDIS_URL/);
    dir.cleanup();
  });
});
