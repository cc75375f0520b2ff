import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('webhook configuration', () => {
  it('defaults: https only, real time, 5 s answers', () => {
    expect(loadConfig({}, '/')).toMatchObject({ webhookAllowInsecureLocalhost: false, webhookTimeScale: 1, webhookTimeoutMs: 5000 });
  });

  it('reads the three variables', () => {
    const c = loadConfig({ ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST: '1', ADSVC_WEBHOOK_TIME_SCALE: '0.0001', ADSVC_WEBHOOK_TIMEOUT_MS: '750' }, '/');
    expect(c).toMatchObject({ webhookAllowInsecureLocalhost: true, webhookTimeScale: 0.0001, webhookTimeoutMs: 750 });
    expect(loadConfig({ ADSVC_WEBHOOK_TIME_SCALE: '7.7e-5' }, '/').webhookTimeScale).toBe(7.7e-5);
    expect(loadConfig({ ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST: 'false' }, '/').webhookAllowInsecureLocalhost).toBe(false);
  });

  it.each([
    ['ADSVC_WEBHOOK_TIME_SCALE', '0'],
    ['ADSVC_WEBHOOK_TIME_SCALE', '-1'],
    ['ADSVC_WEBHOOK_TIME_SCALE', 'fast'],
    ['ADSVC_WEBHOOK_TIME_SCALE', '101'],
    ['ADSVC_WEBHOOK_TIMEOUT_MS', '50'],
    ['ADSVC_WEBHOOK_TIMEOUT_MS', '5s'],
    ['ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST', 'yes'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value }, '/')).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value }, '/')).toThrow(name);
  });
});
