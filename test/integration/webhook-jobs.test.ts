import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startJobSystem, type JobSystem } from '../../jobs/job-system.js';
import { QUEUE } from '../../jobs/queue-names.js';
import { WEBHOOK_RECONCILE } from '../../jobs/webhook-delivery.js';
import { systemClock } from '../../src/clock.js';
import { createEndpoint } from '../../src/domain/webhooks/webhook-endpoints.js';
import { recordWebhookEvent } from '../../src/domain/webhooks/webhook-outbox.js';
import type { Store } from '../../src/store/store.js';
import { deleteRedisPrefix, makeAccount, openMigratedStore, quietLog, redisUrl, tempDir, uniquePrefix } from '../support/context.js';
import { startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.js';

/**
 * Deliveries through real Redis and BullMQ workers: the relay queues new
 * deliveries, attempt jobs queue their retries, and the reconciler brings
 * back what Redis lost.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface World {
  store: Store;
  jobs: JobSystem;
  receiver: Receiver;
  prefix: string;
  accountId: string;
  endpoint: { id: string; secret: string };
}

async function setup(answer: () => Answer, timeScale: number): Promise<World> {
  const dir = tempDir();
  const prefix = uniquePrefix();
  const store = await openMigratedStore(dir.path, systemClock);
  const receiver = await startReceiver(answer);
  const jobs = await startJobSystem({
    redisUrl: redisUrl(),
    prefix,
    store,
    clock: systemClock,
    log: quietLog,
    dataDir: dir.path,
    audienceMinSize: 1,
    reviewDelayMs: 0,
    webhooks: { timeScale, timeoutMs: 1000 },
  });
  cleanups.push(
    async () => {
      await deleteRedisPrefix(redisUrl(), prefix);
      dir.cleanup();
    },
    () => store.close(),
    () => receiver.close(),
    async () => {
      await jobs.close(5000);
    },
  );
  const { accountId } = await makeAccount({ store, clock: systemClock });
  const e = await createEndpoint({ store, clock: systemClock, allowInsecureLocalhost: true }, accountId, { name: 'R', url: `${receiver.url}/hook`, event_types: ['campaign.updated'] });
  return { store, jobs, receiver, prefix, accountId, endpoint: { id: e.id, secret: e.signing_secret as string } };
}

async function emit(w: World): Promise<string> {
  const recorded = await w.store.transaction((tx) => recordWebhookEvent(tx, systemClock, { accountId: w.accountId, type: 'campaign.updated', resourceId: 'cmpn_x' }));
  return recorded?.deliveryIds[0] as string;
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const delivery = (w: World, id: string) => w.store.get('SELECT status, attempts, last_status_code FROM webhook_deliveries WHERE id = $id', { id });

describe('webhook delivery jobs', () => {
  it('deliver a new event without anyone queueing it, and retry failures until a 2xx', async () => {
    let n = 0;
    const w = await setup(() => (++n <= 2 ? { status: 500 } : { status: 200 }), 0.01);
    const id = await emit(w);
    expect(await until('delivery', () => delivery(w, id), (d) => d?.['status'] !== 'pending')).toEqual({ status: 'succeeded', attempts: 3, last_status_code: 200 });
    expect(w.receiver.requests).toHaveLength(3);
    for (const r of w.receiver.requests) expect(new Webhook(w.endpoint.secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({ type: 'campaign.updated' });
    expect(await w.jobs.queue(QUEUE.webhookDelivery).getJobScheduler(WEBHOOK_RECONCILE)).toBeDefined();
  });

  it('bring back a retry Redis lost, and the reconciler schedule with it', async () => {
    let n = 0;
    // Attempt 1 fails; the retry is due about 1 s later (time scale 0.2).
    const w = await setup(() => (++n === 1 ? { status: 503 } : { status: 200 }), 0.2);
    const id = await emit(w);
    const queue = w.jobs.queue(QUEUE.webhookDelivery);
    await until('attempt 1 recorded and attempt 2 queued', async () => ((await delivery(w, id))?.['attempts'] === 1 ? await queue.getJob(`webhook-${id}-2`) : undefined), (j) => j !== undefined);
    // Redis loses everything under the prefix (a restart without persistence).
    await deleteRedisPrefix(redisUrl(), w.prefix);
    expect(await queue.getJob(`webhook-${id}-2`)).toBeUndefined();
    expect(await until('delivery', () => delivery(w, id), (d) => d?.['status'] !== 'pending')).toEqual({ status: 'succeeded', attempts: 2, last_status_code: 200 });
    expect(w.receiver.requests).toHaveLength(2);
    expect(await until('scheduler', () => queue.getJobScheduler(WEBHOOK_RECONCILE), (s) => s !== undefined)).toBeDefined();
  });

  it('reconcile deliveries recorded while no service ran, at start', async () => {
    const w = await setup(() => ({ status: 200 }), 1);
    await w.jobs.close(5000);
    // Recorded with no job system running (the CLI loading a file, say).
    const id = await emit(w);
    const jobs = await startJobSystem({ redisUrl: redisUrl(), prefix: w.prefix, store: w.store, clock: systemClock, log: quietLog, dataDir: '/nonexistent', audienceMinSize: 1, reviewDelayMs: 0, webhooks: { timeScale: 1, timeoutMs: 1000 } });
    cleanups.push(async () => {
      await jobs.close(5000);
    });
    expect(await until('delivery', () => delivery(w, id), (d) => d?.['status'] !== 'pending')).toEqual({ status: 'succeeded', attempts: 1, last_status_code: 200 });
  });
});
