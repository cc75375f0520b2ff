import { describe, expect, it } from 'vitest';
import { ConfigError, defaultQueuePrefix, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('fills defaults and resolves the data dir against cwd', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c).toMatchObject({ port: 8080, host: '0.0.0.0', dataDir: '/srv/app/data', redisUrl: undefined, logLevel: 'info', reviewDelayMs: 5000 });
    expect(c.queuePrefix).toBe(defaultQueuePrefix('/srv/app/data'));
    expect(c.duckdbMemoryLimit).toBe('1GB');
    expect(loadConfig({ ADSVC_DUCKDB_MEMORY_LIMIT: '4GB' }, '/').duckdbMemoryLimit).toBe('4GB');
  });

  it('reads every variable and freezes the result', () => {
    const c = loadConfig(
      { PORT: '9090', ADSVC_DATA_DIR: '/var/lib/adsvc', REDIS_URL: 'redis://10.0.0.5:6380', LOG_LEVEL: 'warn', ADSVC_REVIEW_DELAY_MS: '0', ADSVC_QUEUE_PREFIX: 'p1' },
      '/',
    );
    expect(c).toMatchObject({ port: 9090, dataDir: '/var/lib/adsvc', redisUrl: 'redis://10.0.0.5:6380', logLevel: 'warn', reviewDelayMs: 0, queuePrefix: 'p1' });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '' }, '/').port).toBe(8080);
  });

  it('gives different data dirs different queue prefixes', () => {
    expect(defaultQueuePrefix('/a')).not.toBe(defaultQueuePrefix('/b'));
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ADSVC_QUEUE_PREFIX: 'has space' }, 'ADSVC_QUEUE_PREFIX'],
    [{ ADSVC_DUCKDB_MEMORY_LIMIT: 'lots' }, 'ADSVC_DUCKDB_MEMORY_LIMIT'],
    [{ ADSVC_DUCKDB_MEMORY_LIMIT: '2GB; SET threads=1' }, 'ADSVC_DUCKDB_MEMORY_LIMIT'],
  ])('rejects %o naming the variable', (env, name) => {
    expect(() => loadConfig(env, '/')).toThrow(ConfigError);
    expect(() => loadConfig(env, '/')).toThrow(name);
  });
});

describe('canonicalTimezone', () => {
  it('fixes the case of zone names and keeps links as given', async () => {
    const { canonicalTimezone } = await import('../../src/domain/timezones.js');
    expect(canonicalTimezone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimezone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(canonicalTimezone('UTC')).toBe('UTC');
    expect(canonicalTimezone('Mars/Olympus_Mons')).toBeNull();
    expect(canonicalTimezone('')).toBeNull();
  });
});
