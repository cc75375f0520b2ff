import { randomBytes } from 'node:crypto';

/** Prefixes of public identifiers (COMPAT.md, Identifiers). */
export const ID_PREFIX = {
  adAccount: 'adacct_',
  apiKey: 'key_',
  file: 'file_',
  request: 'req_',
  event: 'evt_',
} as const;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Random lowercase base-36 text; 24 characters carry about 124 bits. */
export function randomToken(length = 24): string {
  const bytes = randomBytes(length);
  let out = '';
  // 252 is the largest multiple of 36 below 256: rejecting above it keeps the draw uniform.
  for (let i = 0; out.length < length; i++) {
    if (i >= bytes.length) return out + randomToken(length - out.length);
    const b = bytes[i] as number;
    if (b < 252) out += ALPHABET[b % 36];
  }
  return out;
}

export function newId(prefix: string): string {
  return prefix + randomToken(24);
}
