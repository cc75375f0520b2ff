import { z } from 'zod';
import type { Clock } from '../clock.js';
import { sql } from '../store/sql-loader.js';
import type { Store } from '../store/store.js';
import type { SendResult, WebhookSender } from './http-sender.js';
import { nextAttemptAt, retryDeadline } from './retry-schedule.js';
import { webhookHeaders } from './signing.js';

/**
 * One attempt of one delivery: sign afresh, POST, record what happened in
 * DuckDB and say what comes next. Attempts are numbered; attempt n runs only
 * while the delivery is pending with n - 1 attempts recorded, and is recorded
 * only under that same condition, so a job that runs twice (a stalled job, a
 * reconciler racing a worker) cannot count twice. The one gap left is a crash
 * after the receiver answered and before the answer was recorded: the attempt
 * is made again, a duplicate receivers drop by `webhook-id` (spec, Events 7).
 */
export interface AttemptDeps {
  store: Store;
  clock: Clock;
  send: WebhookSender;
  /** How long to wait for an answer (ADSVC_WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** ADSVC_WEBHOOK_TIME_SCALE: multiplies retry delays and the deadline. */
  timeScale: number;
  /** Jitter source; tests pass a fixed one. */
  random?: () => number;
}

export type AttemptOutcome =
  /** Not pending any more, or this attempt is not the next one: nothing was sent. */
  | { outcome: 'skipped' }
  | { outcome: 'succeeded'; statusCode: number }
  /** Failed; attempt `attempt` is due at `dueAtMs`. */
  | { outcome: 'retry'; attempt: number; dueAtMs: number; statusCode: number | null; error: string }
  | { outcome: 'failed'; statusCode: number | null; error: string };

const State = z.object({
  id: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  first_attempt_at_ms: z.number().nullable(),
  deadline_at_ms: z.number().nullable(),
  endpoint_id: z.string(),
  event_id: z.string(),
  payload: z.string(),
  url: z.string().nullable(),
  endpoint_status: z.string().nullable(),
  secret: z.string().nullable(),
  previous_secret: z.string().nullable(),
  previous_secret_expires_at_ms: z.number().nullable(),
});
type State = z.infer<typeof State>;

/** The secrets that sign at `nowMs`: the current one, and one rotated out less than 24 hours ago. */
function activeSecrets(s: State, nowMs: number): string[] {
  const out = [s.secret as string];
  if (s.previous_secret !== null && s.previous_secret_expires_at_ms !== null && s.previous_secret_expires_at_ms > nowMs) out.push(s.previous_secret);
  return out;
}

/** What a response means (spec, Events 4-6): 2xx received; 3xx is not followed; 410 retires the endpoint. */
function judge(r: SendResult): { ok: boolean; gone: boolean; statusCode: number | null; error: string | null } {
  if (r.status === null) return { ok: false, gone: false, statusCode: null, error: r.error };
  if (r.status >= 200 && r.status < 300) return { ok: true, gone: false, statusCode: r.status, error: null };
  if (r.status === 410) return { ok: false, gone: true, statusCode: 410, error: 'HTTP 410 Gone: the endpoint is disabled and receives nothing more.' };
  if (r.status >= 300 && r.status < 400) {
    const to = r.location === null ? '' : ` to ${r.location}`;
    return { ok: false, gone: false, statusCode: r.status, error: `HTTP ${r.status} redirect${to} not followed: set the endpoint URL to the final destination.` };
  }
  return { ok: false, gone: false, statusCode: r.status, error: `HTTP ${r.status}` };
}

export async function attemptDelivery(deps: AttemptDeps, deliveryId: string, attempt: number): Promise<AttemptOutcome> {
  const row = await deps.store.get(sql('webhook-delivery-attempt-state'), { id: deliveryId });
  if (!row) return { outcome: 'skipped' };
  const s = State.parse(row);
  if (s.status !== 'pending' || s.attempts !== attempt - 1) return { outcome: 'skipped' };

  const startedAt = deps.clock.nowMs();
  const first = s.first_attempt_at_ms ?? startedAt;
  const deadline = s.deadline_at_ms ?? retryDeadline(first, deps.timeScale);
  const record = async (p: { status: 'succeeded' | 'failed' | 'pending'; nextAt: number | null; statusCode: number | null; error: string | null; gone?: boolean }) =>
    deps.store.transaction(async (tx) => {
      const now = deps.clock.nowMs();
      const done = p.status !== 'pending';
      const [updated] = await tx.write(sql('webhook-delivery-record'), {
        id: deliveryId,
        attempt,
        status: p.status,
        next_at_ms: p.nextAt,
        attempted_at_ms: startedAt,
        deadline_at_ms: deadline,
        status_code: p.statusCode,
        error: p.error,
        completed_at_ms: done ? now : null,
        now_ms: now,
      });
      if (updated && p.gone) {
        await tx.run(sql('webhook-endpoint-disable'), { id: s.endpoint_id, reason: 'endpoint_gone', now_ms: now });
        await tx.run(sql('webhook-deliveries-fail-endpoint'), { endpoint: s.endpoint_id, error: 'The endpoint answered 410 Gone and was disabled.', now_ms: now });
      }
      return updated !== undefined;
    });

  // Disabled (or deleted) since the event: nothing is sent, and its pending deliveries end.
  if (s.endpoint_status !== 'enabled' || s.url === null || s.secret === null) {
    const error = 'The endpoint is disabled.';
    await deps.store.run(sql('webhook-deliveries-fail-endpoint'), { endpoint: s.endpoint_id, error, now_ms: deps.clock.nowMs() });
    return { outcome: 'failed', statusCode: null, error };
  }

  const headers = webhookHeaders({ messageId: s.event_id, timestampMs: startedAt, body: s.payload, secrets: activeSecrets(s, startedAt) });
  const verdict = judge(await deps.send({ url: s.url, headers, body: s.payload, timeoutMs: deps.timeoutMs }));
  if (verdict.ok) {
    const recorded = await record({ status: 'succeeded', nextAt: null, statusCode: verdict.statusCode, error: null });
    return recorded ? { outcome: 'succeeded', statusCode: verdict.statusCode as number } : { outcome: 'skipped' };
  }
  const error = verdict.error as string;
  const nextAt = verdict.gone ? null : nextAttemptAt({ failedAttempts: attempt, nowMs: startedAt, deadlineAtMs: deadline, scale: deps.timeScale, ...(deps.random ? { random: deps.random } : {}) });
  if (nextAt === null) {
    const recorded = await record({ status: 'failed', nextAt: null, statusCode: verdict.statusCode, error, gone: verdict.gone });
    return recorded ? { outcome: 'failed', statusCode: verdict.statusCode, error } : { outcome: 'skipped' };
  }
  const recorded = await record({ status: 'pending', nextAt, statusCode: verdict.statusCode, error });
  return recorded ? { outcome: 'retry', attempt: attempt + 1, dueAtMs: nextAt, statusCode: verdict.statusCode, error } : { outcome: 'skipped' };
}
