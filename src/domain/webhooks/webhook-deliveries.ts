import { z } from 'zod';
import { toUnixSeconds } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../../store/list-page.js';
import { sql } from '../../store/sql-loader.js';
import { sqlList, type Queryable, type Row, type Store } from '../../store/store.js';

/**
 * Deliveries of events to endpoints, as clients read them (issue 8, item 4:
 * status, attempts, last status code and error).
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const DeliveryRecord = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  event_id: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  next_attempt_at_ms: z.number().nullable(),
  first_attempt_at_ms: z.number().nullable(),
  last_attempt_at_ms: z.number().nullable(),
  deadline_at_ms: z.number().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  completed_at_ms: z.number().nullable(),
  created_at_ms: z.number(),
});
type DeliveryRecord = z.infer<typeof DeliveryRecord>;

export interface WebhookDelivery {
  id: string;
  object: 'webhook_delivery';
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** Sent by the test route, with sample data. */
  test: boolean;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  first_attempt_at: number | null;
  last_attempt_at: number | null;
  /** While pending: when the next attempt is due. */
  next_attempt_at: number | null;
  /** The end of the retry window: 72 hours after the first attempt. */
  retry_deadline: number | null;
  completed_at: number | null;
}

const secs = (ms: number | null): number | null => (ms === null ? null : toUnixSeconds(ms));

function toWire(r: DeliveryRecord, event: { type: string; is_test: boolean }): WebhookDelivery {
  return {
    id: r.id,
    object: 'webhook_delivery',
    endpoint_id: r.endpoint_id,
    event_id: r.event_id,
    event_type: event.type,
    test: event.is_test,
    status: r.status,
    attempts: r.attempts,
    last_status_code: r.last_status_code,
    last_error: r.last_error,
    created_at: toUnixSeconds(r.created_at_ms),
    first_attempt_at: secs(r.first_attempt_at_ms),
    last_attempt_at: secs(r.last_attempt_at_ms),
    next_attempt_at: r.status === 'pending' ? secs(r.next_attempt_at_ms) : null,
    retry_deadline: secs(r.deadline_at_ms),
    completed_at: secs(r.completed_at_ms),
  };
}

const EventInfo = z.object({ id: z.string(), type: z.string(), is_test: z.boolean() });

export async function getDeliveryWire(deps: { store: Store }, accountId: string, id: string): Promise<WebhookDelivery> {
  const row = await deps.store.get(sql('webhook-delivery-get'), { id, account: accountId });
  if (!row) throw ApiError.notFound('webhook delivery', id);
  return toWire(DeliveryRecord.parse(row), EventInfo.parse({ id: row['event_id'], type: row['event_type'], is_test: row['is_test'] }));
}

/** `GET /webhook_endpoints/{id}/deliveries`: newest first by default, optionally one status only. */
export async function listDeliveries(
  db: Queryable,
  accountId: string,
  endpointId: string,
  params: ListParams & { status?: DeliveryStatus | undefined },
): Promise<ListEnvelope<WebhookDelivery>> {
  const { rows, hasMore } = await listPage(db, 'webhook_deliveries', accountId, params, { endpoint_id: endpointId, status: params.status });
  const records = rows.map((r: Row) => DeliveryRecord.parse(r));
  const events = new Map<string, z.infer<typeof EventInfo>>();
  if (records.length > 0) {
    for (const e of await db.all(sql('webhook-delivery-events'), { events: sqlList(records.map((r) => r.event_id)) })) {
      const info = EventInfo.parse(e);
      events.set(info.id, info);
    }
  }
  return toListEnvelope(
    records.map((r) => toWire(r, events.get(r.event_id) ?? { type: 'unknown', is_test: false })),
    hasMore,
  );
}

const PendingRow = z.object({ id: z.string(), seq: z.number().int(), attempt: z.number().int(), next_attempt_at_ms: z.number().nullable() });
export type PendingDelivery = z.infer<typeof PendingRow>;

/** Pending deliveries after `afterSeq` in commit order, each with the attempt it waits for. */
export async function pendingDeliveries(db: Queryable, afterSeq = 0): Promise<PendingDelivery[]> {
  return (await db.all(sql('webhook-deliveries-pending'), { after_seq: afterSeq })).map((r) => PendingRow.parse(r));
}
