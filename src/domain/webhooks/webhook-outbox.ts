import { z } from 'zod';
import { toUnixSeconds, type Clock } from '../../clock.js';
import { ID_PREFIX, newId } from '../../ids.js';
import { sql } from '../../store/sql-loader.js';
import type { Queryable } from '../../store/store.js';
import type { WebhookEventType } from './webhook-event-types.js';

/**
 * The outbox (issue 8, item 4): an event and one pending delivery per
 * subscribed endpoint, written with the caller's transaction, so they exist
 * exactly when the change that caused them committed. Delivery jobs are
 * queued afterwards from these rows (jobs/webhook-delivery.ts), never instead
 * of them.
 */
export const DELIVERY_PREFIX = 'dlv_';

export interface NewEvent {
  accountId: string;
  type: WebhookEventType;
  /** `data.id`. */
  resourceId: string;
}

export interface RecordedEvent {
  eventId: string;
  deliveryIds: string[];
}

const EnabledEndpoint = z.object({ id: z.string(), event_types: z.string().transform((s) => z.array(z.string()).parse(JSON.parse(s))) });

/** The body of an event, exactly the spec's shape (spec, Events 3). */
function eventBody(id: string, type: string, createdAtMs: number, resourceId: string): string {
  return JSON.stringify({ object: 'event', id, type, created_at: toUnixSeconds(createdAtMs), data: { id: resourceId } });
}

async function insertEvent(tx: Queryable, clock: Clock, e: NewEvent, endpointIds: readonly string[], isTest: boolean): Promise<RecordedEvent> {
  const eventId = newId(ID_PREFIX.event);
  const now = clock.nowMs();
  await tx.run(sql('webhook-event-insert'), {
    id: eventId,
    account: e.accountId,
    type: e.type,
    resource_id: e.resourceId,
    payload: eventBody(eventId, e.type, now, e.resourceId),
    is_test: isTest,
    now_ms: now,
  });
  const deliveryIds: string[] = [];
  for (const endpoint of endpointIds) {
    const id = newId(DELIVERY_PREFIX);
    await tx.run(sql('webhook-delivery-insert'), { id, account: e.accountId, endpoint, event: eventId, now_ms: now });
    deliveryIds.push(id);
  }
  return { eventId, deliveryIds };
}

/**
 * Records an event for every enabled endpoint of the account subscribed to
 * its type. Without such an endpoint nothing is written (null).
 */
export async function recordWebhookEvent(tx: Queryable, clock: Clock, e: NewEvent): Promise<RecordedEvent | null> {
  const endpoints = (await tx.all(sql('webhook-endpoints-enabled'), { account: e.accountId })).map((r) => EnabledEndpoint.parse(r));
  const subscribed = endpoints.filter((ep) => ep.event_types.includes(e.type)).map((ep) => ep.id);
  if (subscribed.length === 0) return null;
  return insertEvent(tx, clock, e, subscribed, false);
}

/** A test event (POST /webhook_endpoints/{id}/test) for one endpoint, delivered like any other. */
export function recordTestEvent(tx: Queryable, clock: Clock, e: NewEvent, endpointId: string): Promise<RecordedEvent> {
  return insertEvent(tx, clock, e, [endpointId], true);
}

const ReachedLimit = z.object({ ad_account_id: z.string(), limit_id: z.string(), day: z.string(), kind: z.enum(['daily', 'window']) });

/**
 * spend_limit.reached for every limit the spend recorded since `sinceMs`
 * made reach its amount: the daily limit once per local day (data.id: the
 * account), a window once (data.id: the window). Runs inside the load's
 * transaction; each limit is marked whether or not an endpoint listens, so a
 * later subscription does not hear of old news.
 */
export async function recordReachedSpendLimits(tx: Queryable, clock: Clock, sinceMs: number): Promise<number> {
  const reached = (await tx.all(sql('webhook-spend-limits-reached'), { since_ms: sinceMs })).map((r) => ReachedLimit.parse(r));
  for (const r of reached) {
    await tx.run(sql('webhook-spend-limit-mark'), { limit: r.limit_id, day: r.day, account: r.ad_account_id, now_ms: clock.nowMs() });
    await recordWebhookEvent(tx, clock, { accountId: r.ad_account_id, type: 'spend_limit.reached', resourceId: r.kind === 'window' ? r.limit_id : r.ad_account_id });
  }
  return reached.length;
}

/**
 * ingest_run.completed, once the run succeeded or failed: to the run's
 * account, or (a run not scoped to one, from the CLI) to every account it
 * stored events for.
 */
export async function recordRunCompleted(tx: Queryable, clock: Clock, run: { id: string; accountId: string | null }): Promise<void> {
  const accounts =
    run.accountId !== null ? [run.accountId] : (await tx.all(sql('webhook-run-accounts'), { run: run.id })).map((r) => z.string().parse(r['ad_account_id']));
  for (const accountId of accounts) await recordWebhookEvent(tx, clock, { accountId, type: 'ingest_run.completed', resourceId: run.id });
}
