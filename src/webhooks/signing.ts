import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { toUnixSeconds } from '../clock.js';

/**
 * Standard Webhooks signing (spec, Authentication: webhook requests are
 * signed; verification follows the Standard Webhooks specification). The
 * `standardwebhooks` library computes every signature, so what we send is
 * what its verifiers (and every other implementation of the spec) accept.
 */
export const SECRET_PREFIX = 'whsec_';

/** The fixed product string of every webhook request (spec, Events 2). */
export const WEBHOOK_USER_AGENT = 'adsvc-webhooks/1.0';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (COMPAT.md, Webhook endpoints). */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** What reads show instead of the secret: enough to tell two secrets apart, not to sign. */
export function secretHint(secret: string): string {
  return `${SECRET_PREFIX}...${secret.slice(-4)}`;
}

export interface SignedMessage {
  /** `webhook-id`: the event id, the same on every attempt (receivers deduplicate on it). */
  messageId: string;
  /** When this attempt is made; each attempt is signed afresh. */
  timestampMs: number;
  /** The exact bytes sent. */
  body: string;
  /** The current secret first, then one still in its rotation overlap. */
  secrets: readonly string[];
}

/**
 * Every header of one attempt. With two active secrets `webhook-signature`
 * carries both signatures separated by a space; a receiver holding either
 * secret accepts the request.
 */
export function webhookHeaders(m: SignedMessage): Record<string, string> {
  if (m.secrets.length === 0) throw new Error('a webhook needs at least one signing secret');
  const seconds = toUnixSeconds(m.timestampMs);
  const at = new Date(seconds * 1000);
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': m.messageId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': m.secrets.map((s) => new Webhook(s).sign(m.messageId, at, m.body)).join(' '),
  };
}
