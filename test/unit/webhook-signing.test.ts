import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, secretHint, WEBHOOK_USER_AGENT, webhookHeaders } from '../../src/webhooks/signing.js';

/**
 * Conformance with Standard Webhooks: our headers reproduce the
 * specification's published test vector, and the `standardwebhooks`
 * library's verifier accepts what we send, including the two-signature
 * header of a rotation overlap, with either secret.
 */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const body = JSON.stringify({ object: 'event', id: 'evt_1', type: 'campaign.updated', created_at: 1_700_000_000, data: { id: 'cmpn_1' } });

describe('webhook signatures', () => {
  it('reproduce the official test vector', () => {
    const h = webhookHeaders({ messageId: VECTOR.id, timestampMs: VECTOR.timestamp * 1000, body: VECTOR.body, secrets: [VECTOR.secret] });
    expect(h).toEqual({
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    });
  });

  it('are accepted by the standardwebhooks verifier, and only for the exact body, id and secret', () => {
    const secret = newSigningSecret();
    const h = webhookHeaders({ messageId: 'evt_1', timestampMs: Date.now(), body, secrets: [secret] });
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, h)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('cmpn_1', 'cmpn_2'), h)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body, { ...h, 'webhook-id': 'evt_2' })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(newSigningSecret()).verify(body, h)).toThrow(WebhookVerificationError);
  });

  it('carry both signatures, space separated, while two secrets are active; each secret verifies', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const at = Date.now();
    const h = webhookHeaders({ messageId: 'evt_1', timestampMs: at, body, secrets: [current, previous] });
    const parts = (h['webhook-signature'] as string).split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(new Webhook(current).sign('evt_1', new Date(Math.floor(at / 1000) * 1000), body));
    expect(parts[1]).toBe(new Webhook(previous).sign('evt_1', new Date(Math.floor(at / 1000) * 1000), body));
    expect(new Webhook(current).verify(body, h)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, h)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSigningSecret()).verify(body, h)).toThrow(WebhookVerificationError);
  });

  it('with the test vector as the second of two secrets, the header still verifies with it', () => {
    const h = webhookHeaders({ messageId: VECTOR.id, timestampMs: VECTOR.timestamp * 1000, body: VECTOR.body, secrets: [newSigningSecret(), VECTOR.secret] });
    expect((h['webhook-signature'] as string).split(' ')[1]).toBe(VECTOR.signature);
  });

  it('use a whole-second timestamp of the attempt', () => {
    const h = webhookHeaders({ messageId: 'evt_1', timestampMs: 1_700_000_000_999, body, secrets: [newSigningSecret()] });
    expect(h['webhook-timestamp']).toBe('1700000000');
  });

  it('need a secret', () => {
    expect(() => webhookHeaders({ messageId: 'evt_1', timestampMs: 0, body, secrets: [] })).toThrow();
  });
});

describe('signing secrets', () => {
  it('are whsec_ and base64 of 32 random bytes, different every time', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });

  it('are hinted by their last four characters only', () => {
    const s = newSigningSecret();
    expect(secretHint(s)).toBe(`whsec_...${s.slice(-4)}`);
  });
});
