import { ApiError } from '../../errors/api-error.js';

/**
 * Where an endpoint may point (issue 8, item 1): https only. Plain http is
 * refused, except to loopback addresses while
 * ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST=1, so a receiver on the same
 * machine can be used in development and tests.
 */
export const MAX_URL_LENGTH = 2048;

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || LOOPBACK_V4.test(h);
}

export function checkWebhookUrl(raw: string, allowInsecureLocalhost: boolean, param = 'url'): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError('invalid_value', `Invalid ${param}: must be an absolute https:// URL.`, { param });
  }
  if (url.username !== '' || url.password !== '') {
    throw new ApiError('invalid_value', `Invalid ${param}: credentials in the URL are not allowed.`, { param });
  }
  if (url.protocol === 'https:') return raw;
  if (url.protocol === 'http:') {
    if (allowInsecureLocalhost && isLoopbackHost(url.hostname)) return raw;
    const hint = isLoopbackHost(url.hostname)
      ? ' Loopback http:// URLs are accepted only while the service runs with ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST=1.'
      : '';
    throw new ApiError('invalid_value', `Invalid ${param}: webhook URLs must use https://.${hint}`, { param });
  }
  throw new ApiError('invalid_value', `Invalid ${param}: must be an absolute https:// URL.`, { param });
}
