import { z } from 'zod';
import { toUnixSeconds, type Clock } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { newId, randomToken } from '../../ids.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../../store/list-page.js';
import { sql } from '../../store/sql-loader.js';
import type { Row, Store } from '../../store/store.js';
import { newSigningSecret, secretHint } from '../../webhooks/signing.js';
import { label } from '../text.js';
import { getDeliveryWire, type WebhookDelivery } from './webhook-deliveries.js';
import { SAMPLE_RESOURCE_PREFIX, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-event-types.js';
import { recordTestEvent } from './webhook-outbox.js';
import { checkWebhookUrl, MAX_URL_LENGTH } from './webhook-url.js';

/**
 * Webhook endpoints (spec: Events; COMPAT.md: Webhook endpoints): a name, an
 * https URL and the event types it receives. The signing secret is shown
 * once, when created or rotated; reads show a hint.
 */
export const ENDPOINT_PREFIX = 'we_';
/** How long a rotated-out secret keeps signing with `keep_old_secret_active_for_24_hours`. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;
export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;

export interface WebhookDeps {
  store: Store;
  clock: Clock;
  /** ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST */
  allowInsecureLocalhost: boolean;
}

const url = z.string().max(MAX_URL_LENGTH);
/** One or more known types; repeats are dropped, order kept (the first is the test route's default). */
const eventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(50)
  .transform((types) => [...new Set(types)]);

const CreateInput = z.object({ name: label(1, 256), url, event_types: eventTypes }).strict();
const UpdateInput = z
  .object({ name: label(1, 256).optional(), url: url.optional(), event_types: eventTypes.optional(), status: z.enum(ENDPOINT_STATUSES).optional() })
  .strict();
const RotateInput = z.object({ keep_old_secret_active_for_24_hours: z.boolean().default(false) }).strict();
const TestInput = z.object({ event_type: z.enum(WEBHOOK_EVENT_TYPES).optional() }).strict();

const EndpointRecord = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  name: z.string(),
  url: z.string(),
  event_types: z.string().transform((s) => z.array(z.enum(WEBHOOK_EVENT_TYPES)).parse(JSON.parse(s))),
  status: z.enum(ENDPOINT_STATUSES),
  disabled_reason: z.string().nullable(),
  secret: z.string(),
  previous_secret: z.string().nullable(),
  previous_secret_expires_at_ms: z.number().nullable(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
type EndpointRecord = z.infer<typeof EndpointRecord>;

export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  name: string;
  url: string;
  event_types: WebhookEventType[];
  status: (typeof ENDPOINT_STATUSES)[number];
  /** `requested` (an update disabled it) or `endpoint_gone` (it answered 410); null while enabled. */
  disabled_reason: string | null;
  signing_secret_hint: string;
  /** While a rotated-out secret still signs too: when it stops (Unix seconds). */
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
  /** Only in the answers to create and rotate_secret. */
  signing_secret?: string;
}

const secs = (ms: number | null): number | null => (ms === null ? null : toUnixSeconds(ms));

function toWire(r: EndpointRecord, nowMs: number, revealSecret = false): WebhookEndpoint {
  const overlap = r.previous_secret !== null && r.previous_secret_expires_at_ms !== null && r.previous_secret_expires_at_ms > nowMs;
  return {
    id: r.id,
    object: 'webhook_endpoint',
    name: r.name,
    url: r.url,
    event_types: r.event_types,
    status: r.status,
    disabled_reason: r.disabled_reason,
    signing_secret_hint: secretHint(r.secret),
    previous_secret_expires_at: overlap ? secs(r.previous_secret_expires_at_ms) : null,
    created_at: toUnixSeconds(r.created_at_ms),
    updated_at: toUnixSeconds(r.updated_at_ms),
    ...(revealSecret ? { signing_secret: r.secret } : {}),
  };
}

const parse = (row: Row | undefined, id: string): EndpointRecord => {
  if (!row) throw ApiError.notFound('webhook endpoint', id);
  return EndpointRecord.parse(row);
};

async function getRecord(deps: Pick<WebhookDeps, 'store'>, accountId: string, id: string): Promise<EndpointRecord> {
  return parse(await deps.store.get(sql('webhook-endpoint-get'), { id, account: accountId }), id);
}

export async function createEndpoint(deps: WebhookDeps, accountId: string, raw: unknown): Promise<WebhookEndpoint> {
  const input = parseOrThrow(CreateInput, raw ?? {});
  checkWebhookUrl(input.url, deps.allowInsecureLocalhost);
  const now = deps.clock.nowMs();
  const [row] = await deps.store.write(sql('webhook-endpoint-insert'), {
    id: newId(ENDPOINT_PREFIX),
    account: accountId,
    name: input.name,
    url: input.url,
    event_types: JSON.stringify(input.event_types),
    secret: newSigningSecret(),
    now_ms: now,
  });
  return toWire(parse(row, 'new'), now, true);
}

export async function getEndpoint(deps: Pick<WebhookDeps, 'store' | 'clock'>, accountId: string, id: string): Promise<WebhookEndpoint> {
  return toWire(await getRecord(deps, accountId, id), deps.clock.nowMs());
}

export async function listEndpoints(deps: Pick<WebhookDeps, 'store' | 'clock'>, accountId: string, params: ListParams): Promise<ListEnvelope<WebhookEndpoint>> {
  const { rows, hasMore } = await listPage(deps.store, 'webhook_endpoints', accountId, params);
  const now = deps.clock.nowMs();
  return toListEnvelope(
    rows.map((r) => toWire(EndpointRecord.parse(r), now)),
    hasMore,
  );
}

/**
 * `POST /webhook_endpoints/{id}`: omitted fields are kept. Disabling ends the
 * endpoint's pending deliveries (failed); enabling again (also after a 410)
 * delivers the events from then on.
 */
export async function updateEndpoint(deps: WebhookDeps, accountId: string, id: string, raw: unknown): Promise<WebhookEndpoint> {
  await getRecord(deps, accountId, id);
  const input = parseOrThrow(UpdateInput, raw ?? {});
  if (input.url !== undefined) checkWebhookUrl(input.url, deps.allowInsecureLocalhost);
  return deps.store.transaction(async (tx) => {
    const current = parse(await tx.get(sql('webhook-endpoint-get'), { id, account: accountId }), id);
    const status = input.status ?? current.status;
    const now = deps.clock.nowMs();
    const disabling = status === 'disabled' && current.status === 'enabled';
    const [row] = await tx.write(sql('webhook-endpoint-update'), {
      id,
      account: accountId,
      name: input.name ?? current.name,
      url: input.url ?? current.url,
      event_types: JSON.stringify(input.event_types ?? current.event_types),
      status,
      disabled_reason: status === 'enabled' ? null : disabling ? 'requested' : current.disabled_reason,
      now_ms: now,
    });
    if (disabling) await tx.run(sql('webhook-deliveries-fail-endpoint'), { endpoint: id, error: 'The endpoint was disabled.', now_ms: now });
    return toWire(parse(row, id), now);
  });
}

export async function deleteEndpoint(deps: Pick<WebhookDeps, 'store'>, accountId: string, id: string): Promise<{ id: string; object: 'webhook_endpoint.deleted'; deleted: true }> {
  return deps.store.transaction(async (tx) => {
    parse(await tx.get(sql('webhook-endpoint-get'), { id, account: accountId }), id);
    await tx.run(sql('webhook-endpoint-deliveries-delete'), { endpoint: id });
    await tx.run(sql('webhook-endpoint-delete'), { id, account: accountId });
    return { id, object: 'webhook_endpoint.deleted', deleted: true };
  });
}

/**
 * A new signing secret, shown once. With `keep_old_secret_active_for_24_hours`
 * the old one signs too for 24 hours (both signatures in `webhook-signature`),
 * so receivers can switch without dropping a request; without it, it stops at once.
 */
export async function rotateSecret(deps: WebhookDeps, accountId: string, id: string, raw: unknown): Promise<WebhookEndpoint> {
  await getRecord(deps, accountId, id);
  const input = parseOrThrow(RotateInput, raw ?? {});
  const now = deps.clock.nowMs();
  const [row] = await deps.store.write(sql('webhook-endpoint-rotate'), {
    id,
    account: accountId,
    secret: newSigningSecret(),
    previous_expires_at_ms: input.keep_old_secret_active_for_24_hours ? now + SECRET_OVERLAP_MS : null,
    now_ms: now,
  });
  return toWire(parse(row, id), now, true);
}

/**
 * `POST /webhook_endpoints/{id}/test`: a test event with sample data (of
 * `event_type`, default the endpoint's first type), delivered, signed and
 * retried like any other. Answers the delivery, to follow in the deliveries list.
 */
export async function sendTestEvent(deps: WebhookDeps, accountId: string, id: string, raw: unknown): Promise<WebhookDelivery> {
  const endpoint = await getRecord(deps, accountId, id);
  const input = parseOrThrow(TestInput, raw ?? {});
  if (endpoint.status !== 'enabled') {
    throw new ApiError('invalid_value', `Webhook endpoint '${id}' is disabled; enable it (POST /webhook_endpoints/${id} with {"status":"enabled"}) before sending a test event.`);
  }
  const type = input.event_type ?? (endpoint.event_types[0] as WebhookEventType);
  const resourceId = type === 'ad_account.review.updated' ? accountId : `${SAMPLE_RESOURCE_PREFIX[type]}test_${randomToken(16)}`;
  const recorded = await deps.store.transaction((tx) => recordTestEvent(tx, deps.clock, { accountId, type, resourceId }, id));
  return getDeliveryWire(deps, accountId, recorded.deliveryIds[0] as string);
}
