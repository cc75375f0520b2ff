import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { Clock } from '../src/clock.js';
import { pendingDeliveries, type PendingDelivery } from '../src/domain/webhooks/webhook-deliveries.js';
import type { LogSink } from '../src/logger.js';
import type { Store } from '../src/store/store.js';
import { attemptDelivery, type AttemptOutcome } from '../src/webhooks/delivery-attempt.js';
import { fetchSender, type WebhookSender } from '../src/webhooks/http-sender.js';
import { enqueueOnce } from './enqueue-once.js';
import { WebhookDeliveryPayload } from './payloads.js';
import { jobId } from './queue-names.js';

/**
 * Webhook deliveries over BullMQ. DuckDB holds every delivery (the outbox);
 * Redis holds one delayed job per attempt, id `webhook-<delivery>-<attempt>`,
 * so queueing an attempt twice adds it once. Three things queue attempts:
 * - the relay: a timer in this process picks up deliveries committed since it
 *   last looked (in commit order, by `seq`) and queues their first attempt;
 * - the attempt job itself queues the next attempt when one is due;
 * - the reconciler (a BullMQ job scheduler, and once at start) queues the
 *   awaited attempt of every pending delivery, for what Redis lost (a restart
 *   without persistence) or failed by stalling (a worker killed mid-attempt).
 * If Redis loses even the reconciler's scheduler, the relay notices, puts it
 * back and reconciles at once.
 */
export const WEBHOOK_RECONCILE = 'reconcile';
const DELIVER = 'deliver';

export interface WebhookJobOptions {
  queue: Queue;
  store: Store;
  clock: Clock;
  log: LogSink;
  /** ADSVC_WEBHOOK_TIME_SCALE */
  timeScale: number;
  /** ADSVC_WEBHOOK_TIMEOUT_MS */
  timeoutMs: number;
  /** The HTTP client; tests may pass another. */
  send?: WebhookSender;
  /** How often the relay looks for new deliveries (default 500 ms). */
  relayEveryMs?: number;
  /** How often the reconciler runs; default one minute times the time scale, within 1 s to 1 min. */
  reconcileEveryMs?: number;
}

export interface WebhookJobs {
  processor(): (job: Job) => Promise<AttemptOutcome | { requeued: number }>;
  /** Reconciles once, schedules the reconciler and starts the relay (workers only). */
  start(): Promise<void>;
  /** Stops the relay and waits for a pass under way. */
  stop(): Promise<void>;
  /** Queues the awaited attempt of every pending delivery. */
  reconcile(): Promise<number>;
  /** One relay pass: queues the first attempt of deliveries committed since the last pass. */
  relay(): Promise<number>;
}

export function webhookJobs(o: WebhookJobOptions): WebhookJobs {
  const send = o.send ?? fetchSender;
  const reconcileEveryMs = o.reconcileEveryMs ?? Math.min(60_000, Math.max(1_000, Math.round(60_000 * o.timeScale)));
  const schedule = (deliveryId: string, attempt: number, dueAtMs: number | null) =>
    enqueueOnce(o.queue, DELIVER, jobId('webhook', deliveryId, attempt), WebhookDeliveryPayload.parse({ deliveryId, attempt }), (dueAtMs ?? 0) - o.clock.nowMs());
  const scheduleAll = async (rows: PendingDelivery[]) => {
    for (const r of rows) await schedule(r.id, r.attempt, r.next_attempt_at_ms);
  };

  // The relay's position in commit order. Writes are serialized through one
  // connection, so a delivery committed later always has a larger seq.
  let relayedSeq = 0;
  const advance = (rows: PendingDelivery[]) => {
    for (const r of rows) relayedSeq = Math.max(relayedSeq, r.seq);
  };

  async function reconcile(): Promise<number> {
    const rows = await pendingDeliveries(o.store);
    await scheduleAll(rows);
    advance(rows);
    if (rows.length > 0) o.log.info({ count: rows.length }, 're-queued pending webhook deliveries');
    return rows.length;
  }

  async function relay(): Promise<number> {
    const rows = await pendingDeliveries(o.store, relayedSeq);
    await scheduleAll(rows);
    advance(rows);
    return rows.length;
  }

  const upsertScheduler = () => o.queue.upsertJobScheduler(WEBHOOK_RECONCILE, { every: reconcileEveryMs }, { name: WEBHOOK_RECONCILE, data: {} });

  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  let lastSchedulerCheck = 0;
  async function tick(): Promise<void> {
    await relay();
    if (Date.now() - lastSchedulerCheck >= 1_000) {
      lastSchedulerCheck = Date.now();
      if ((await o.queue.getJobScheduler(WEBHOOK_RECONCILE)) === undefined) {
        o.log.warn({}, 'the webhook reconciler schedule is gone from Redis (restarted without its data?); restoring it and reconciling now');
        await upsertScheduler();
        await reconcile();
      }
    }
  }

  return {
    reconcile,
    relay,
    async start() {
      await reconcile();
      await upsertScheduler();
      timer = setInterval(() => {
        if (pass) return;
        pass = tick()
          .catch((err: unknown) => o.log.error({ err: err instanceof Error ? err.message : String(err) }, 'webhook relay pass failed'))
          .finally(() => (pass = undefined));
      }, o.relayEveryMs ?? 500);
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await pass;
    },
    processor: () => async (job) => {
      if (job.name === WEBHOOK_RECONCILE) return { requeued: await reconcile() };
      const parsed = WebhookDeliveryPayload.safeParse(job.data);
      if (job.name !== DELIVER || !parsed.success) throw new UnrecoverableError(`invalid webhook job ${job.name}: ${parsed.error?.message ?? 'unknown name'}`);
      const { deliveryId, attempt } = parsed.data;
      const out = await attemptDelivery({ store: o.store, clock: o.clock, send, timeoutMs: o.timeoutMs, timeScale: o.timeScale }, deliveryId, attempt);
      if (out.outcome === 'retry') await schedule(deliveryId, out.attempt, out.dueAtMs);
      if (out.outcome === 'failed') o.log.warn({ deliveryId, attempt, status: out.statusCode, error: out.error }, 'webhook delivery failed');
      return out;
    },
  };
}
