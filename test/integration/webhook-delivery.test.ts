import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createEndpoint, rotateSecret, updateEndpoint, type WebhookDeps } from '../../src/domain/webhooks/webhook-endpoints.js';
import { recordWebhookEvent } from '../../src/domain/webhooks/webhook-outbox.js';
import { freePort } from '../../src/runtime/redis.js';
import type { Store } from '../../src/store/store.js';
import { attemptDelivery, type AttemptDeps } from '../../src/webhooks/delivery-attempt.js';
import { fetchSender } from '../../src/webhooks/http-sender.js';
import { RETRY_WINDOW_MS } from '../../src/webhooks/retry-schedule.js';
import { WEBHOOK_USER_AGENT } from '../../src/webhooks/signing.js';
import { makeAccount, openMigratedStore, tempDir } from '../support/context.js';
import { startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.js';

/**
 * One attempt at a time against a real loopback receiver, with the clock
 * moved by the test instead of waited for: what is sent, how each answer is
 * judged, the retry schedule up to the 72-hour deadline, 410, and signing
 * during a secret rotation.
 */
const dir = tempDir();
let store: Store;
const clock = new ManualClock(Date.now());
let accountId: string;
let receiver: Receiver;
let redirectTarget: Receiver;
let next: Answer[] = [];
const deps = (): WebhookDeps => ({ store, clock, allowInsecureLocalhost: true });
const attemptDeps = (over: Partial<AttemptDeps> = {}): AttemptDeps => ({ store, clock, send: fetchSender, timeoutMs: 2000, timeScale: 1, random: () => 0, ...over });

beforeAll(async () => {
  store = await openMigratedStore(dir.path, clock);
  redirectTarget = await startReceiver();
  receiver = await startReceiver(() => next.shift() ?? { status: 200 });
});
afterAll(async () => {
  await receiver.close();
  await redirectTarget.close();
  await store.close();
  dir.cleanup();
});
// Each test has an account (and so endpoints) of its own.
beforeEach(async () => {
  clock.set(Date.now());
  accountId = (await makeAccount({ store, clock })).accountId;
  receiver.requests.length = 0;
  next = [];
});

async function endpoint(path = '/hook', types = ['campaign.updated']): Promise<{ id: string; secret: string }> {
  const e = await createEndpoint(deps(), accountId, { name: 'Receiver', url: `${receiver.url}${path}`, event_types: types });
  return { id: e.id, secret: e.signing_secret as string };
}
async function emit(resourceId = 'cmpn_1'): Promise<{ eventId: string; deliveryIds: string[] }> {
  const recorded = await store.transaction((tx) => recordWebhookEvent(tx, clock, { accountId, type: 'campaign.updated', resourceId }));
  if (!recorded) throw new Error('no subscribed endpoint');
  return recorded;
}
async function deliveryOf(endpointId: string, eventId: string): Promise<string> {
  const row = await store.get('SELECT id FROM webhook_deliveries WHERE endpoint_id = $e AND event_id = $ev', { e: endpointId, ev: eventId });
  return String(row?.['id']);
}
const row = (id: string) => store.get('SELECT * FROM webhook_deliveries WHERE id = $id', { id });

describe('a delivery attempt', () => {
  it('POSTs the event body with the Standard Webhooks headers, and a 2xx ends the delivery', async () => {
    const e = await endpoint('/ok');
    const { eventId } = await emit('cmpn_ok');
    const id = await deliveryOf(e.id, eventId);
    next = [{ status: 204 }];
    expect(await attemptDelivery(attemptDeps(), id, 1)).toEqual({ outcome: 'succeeded', statusCode: 204 });
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0]!;
    expect(req).toMatchObject({ method: 'POST', path: '/ok' });
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe(WEBHOOK_USER_AGENT);
    expect(req.headers['webhook-id']).toBe(eventId);
    expect(req.headers['webhook-timestamp']).toBe(String(Math.floor(clock.nowMs() / 1000)));
    const body = new Webhook(e.secret).verify(req.body, req.headers as Record<string, string>);
    expect(body).toEqual({ object: 'event', id: eventId, type: 'campaign.updated', created_at: Math.floor(clock.nowMs() / 1000), data: { id: 'cmpn_ok' } });
    expect(await row(id)).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 204, last_error: null, next_attempt_at_ms: null, completed_at_ms: clock.nowMs() });
    // The same attempt again (a job run twice) sends nothing.
    expect(await attemptDelivery(attemptDeps(), id, 1)).toEqual({ outcome: 'skipped' });
    expect(await attemptDelivery(attemptDeps(), id, 2)).toEqual({ outcome: 'skipped' });
    expect(receiver.requests).toHaveLength(1);
  });

  it('retries a 500 after 5 s, signed afresh, with the same webhook-id', async () => {
    const e = await endpoint();
    const { eventId } = await emit();
    const id = await deliveryOf(e.id, eventId);
    next = [{ status: 500 }, { status: 200 }];
    const first = await attemptDelivery(attemptDeps(), id, 1);
    const t0 = clock.nowMs();
    expect(first).toEqual({ outcome: 'retry', attempt: 2, dueAtMs: t0 + 5000, statusCode: 500, error: 'HTTP 500' });
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, next_attempt_at_ms: t0 + 5000, first_attempt_at_ms: t0, deadline_at_ms: t0 + RETRY_WINDOW_MS });
    // Attempt 2 is not attempt 1 again.
    expect(await attemptDelivery(attemptDeps(), id, 1)).toEqual({ outcome: 'skipped' });
    clock.advance(5000);
    expect(await attemptDelivery(attemptDeps(), id, 2)).toEqual({ outcome: 'succeeded', statusCode: 200 });
    const [r1, r2] = receiver.requests as [(typeof receiver.requests)[0], (typeof receiver.requests)[0]];
    expect(r2.headers['webhook-id']).toBe(r1.headers['webhook-id']);
    expect(Number(r2.headers['webhook-timestamp']) - Number(r1.headers['webhook-timestamp'])).toBe(5);
    expect(r2.headers['webhook-signature']).not.toBe(r1.headers['webhook-signature']);
    expect(r2.body).toBe(r1.body);
    expect(await row(id)).toMatchObject({ status: 'succeeded', attempts: 2, first_attempt_at_ms: t0, last_attempt_at_ms: t0 + 5000 });
  });

  it('never follows a redirect: a 3xx is a failed attempt and the target hears nothing', async () => {
    const e = await endpoint();
    const { eventId } = await emit();
    const id = await deliveryOf(e.id, eventId);
    for (const status of [301, 302, 303, 307, 308]) {
      next = [{ status, headers: { location: `${redirectTarget.url}/moved` } }];
      const out = await attemptDelivery(attemptDeps(), id, Number((await row(id))?.['attempts']) + 1);
      expect(out).toMatchObject({ outcome: 'retry', statusCode: status });
      expect(out.outcome === 'retry' && out.error).toContain(`redirect to ${redirectTarget.url}/moved not followed`);
    }
    expect(redirectTarget.requests).toHaveLength(0);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 5, last_status_code: 308 });
  });

  it('gives up waiting after the timeout, and reports refused connections', async () => {
    const e = await endpoint();
    const { eventId } = await emit();
    const id = await deliveryOf(e.id, eventId);
    next = [{ hang: true }];
    expect(await attemptDelivery(attemptDeps({ timeoutMs: 300 }), id, 1)).toMatchObject({ outcome: 'retry', statusCode: null, error: 'no answer within 300 ms' });
    next = [{ reset: true }];
    expect(await attemptDelivery(attemptDeps(), id, 2)).toMatchObject({ outcome: 'retry', statusCode: null });
    const closed = await freePort();
    await updateEndpoint(deps(), accountId, e.id, { url: `http://127.0.0.1:${closed}/hook` });
    const refused = await attemptDelivery(attemptDeps(), id, 3);
    expect(refused).toMatchObject({ outcome: 'retry', statusCode: null });
    expect(refused.outcome === 'retry' && refused.error).toContain('ECONNREFUSED');
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 3, last_status_code: null });
  });

  it('retries for 72 hours and fails with the attempt made at the deadline', async () => {
    const e = await endpoint();
    const { eventId } = await emit();
    const id = await deliveryOf(e.id, eventId);
    const first = clock.nowMs();
    const times: number[] = [];
    let attempt = 1;
    for (;;) {
      next = [{ status: 503 }];
      times.push(clock.nowMs());
      const out = await attemptDelivery(attemptDeps({ random: Math.random }), id, attempt);
      if (out.outcome !== 'retry') {
        expect(out).toEqual({ outcome: 'failed', statusCode: 503, error: 'HTTP 503' });
        break;
      }
      expect(out.dueAtMs).toBeGreaterThan(clock.nowMs());
      clock.set(out.dueAtMs);
      attempt = out.attempt;
    }
    const deadline = first + RETRY_WINDOW_MS;
    expect(times.at(-1)).toBe(deadline);
    expect(times.filter((t) => t >= deadline)).toHaveLength(1);
    expect(receiver.requests).toHaveLength(times.length);
    expect(receiver.requests.map((r) => Number(r.headers['webhook-timestamp']))).toEqual(times.map((t) => Math.floor(t / 1000)));
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: times.length, deadline_at_ms: deadline, last_attempt_at_ms: deadline, completed_at_ms: deadline, next_attempt_at_ms: null });
    expect(await attemptDelivery(attemptDeps(), id, times.length + 1)).toEqual({ outcome: 'skipped' });
  });

  it('compresses delays and the deadline by the time scale', async () => {
    const e = await endpoint();
    const { eventId } = await emit();
    const id = await deliveryOf(e.id, eventId);
    next = [{ status: 500 }];
    const out = await attemptDelivery(attemptDeps({ timeScale: 0.001 }), id, 1);
    expect(out).toMatchObject({ outcome: 'retry', dueAtMs: clock.nowMs() + 5 });
    expect(await row(id)).toMatchObject({ deadline_at_ms: clock.nowMs() + RETRY_WINDOW_MS / 1000 });
    clock.advance(RETRY_WINDOW_MS / 1000 + 1);
    next = [{ status: 500 }];
    expect(await attemptDelivery(attemptDeps({ timeScale: 0.001 }), id, 2)).toMatchObject({ outcome: 'failed' });
  });

  it('on 410 Gone disables the endpoint and ends its other pending deliveries', async () => {
    const e = await endpoint('/gone');
    const one = await deliveryOf(e.id, (await emit()).eventId);
    const two = await deliveryOf(e.id, (await emit()).eventId);
    next = [{ status: 410 }];
    expect(await attemptDelivery(attemptDeps(), one, 1)).toMatchObject({ outcome: 'failed', statusCode: 410 });
    expect(await store.get('SELECT status, disabled_reason FROM webhook_endpoints WHERE id = $id', { id: e.id })).toEqual({ status: 'disabled', disabled_reason: 'endpoint_gone' });
    expect(await row(one)).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
    expect(await row(two)).toMatchObject({ status: 'failed', attempts: 0, last_error: 'The endpoint answered 410 Gone and was disabled.' });
    expect(await attemptDelivery(attemptDeps(), two, 1)).toEqual({ outcome: 'skipped' });
    // New events skip it.
    const other = await endpoint('/other');
    const later = await emit();
    expect(later.deliveryIds).toHaveLength(1);
    expect(await deliveryOf(other.id, later.eventId)).toBe(later.deliveryIds[0]);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/gone']);
  });

  it('sends nothing for an endpoint disabled after the event', async () => {
    const e = await endpoint();
    const id = await deliveryOf(e.id, (await emit()).eventId);
    await store.run("UPDATE webhook_endpoints SET status = 'disabled' WHERE id = $id", { id: e.id });
    expect(await attemptDelivery(attemptDeps(), id, 1)).toMatchObject({ outcome: 'failed', statusCode: null });
    expect(receiver.requests).toHaveLength(0);
    expect(await row(id)).toMatchObject({ status: 'failed', attempts: 0 });
  });

  it('signs with both secrets during a rotation overlap, and with the new one only after 24 hours', async () => {
    const e = await endpoint();
    const rotated = await rotateSecret(deps(), accountId, e.id, { keep_old_secret_active_for_24_hours: true });
    const newSecret = rotated.signing_secret as string;
    const id1 = await deliveryOf(e.id, (await emit()).eventId);
    await attemptDelivery(attemptDeps(), id1, 1);
    const during = receiver.requests[0]!;
    expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(new Webhook(e.secret).verify(during.body, during.headers as Record<string, string>)).toBeTruthy();
    expect(new Webhook(newSecret).verify(during.body, during.headers as Record<string, string>)).toBeTruthy();

    clock.advance(24 * 3_600_000);
    const id2 = await deliveryOf(e.id, (await emit()).eventId);
    await attemptDelivery(attemptDeps(), id2, 1);
    const after = receiver.requests[1]!;
    const sigs = (after.headers['webhook-signature'] as string).split(' ');
    expect(sigs).toEqual([new Webhook(newSecret).sign(String(after.headers['webhook-id']), new Date(clock.nowMs() - (clock.nowMs() % 1000)), after.body)]);

    // Rotating without the overlap stops the old secret at once.
    const again = await rotateSecret(deps(), accountId, e.id, {});
    const id3 = await deliveryOf(e.id, (await emit()).eventId);
    await attemptDelivery(attemptDeps(), id3, 1);
    const last = receiver.requests[2]!;
    expect((last.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(again.signing_secret).not.toBe(newSecret);
  });
});
