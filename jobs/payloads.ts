import { z } from 'zod';

/** Job payloads, validated when enqueued and again when processed. */
/** A brand review (subject: an ad account) or a creative review (subject: an ad). */
export const ReviewPayload = z
  .object({
    subjectId: z.string().min(1),
    reviewSeq: z.number().int().min(1),
  })
  .strict();
export type ReviewPayload = z.infer<typeof ReviewPayload>;

export const AudienceProcessingPayload = z.object({ audienceId: z.string().min(1) }).strict();
export type AudienceProcessingPayload = z.infer<typeof AudienceProcessingPayload>;

export const IngestPayload = z.object({ runId: z.string().min(1) }).strict();

/** Attempt number `attempt` (1 = the first) of a webhook delivery. */
export const WebhookDeliveryPayload = z.object({ deliveryId: z.string().min(1), attempt: z.number().int().min(1) }).strict();
export type WebhookDeliveryPayload = z.infer<typeof WebhookDeliveryPayload>;

/** Maintenance jobs carry no data; the job name says what to do. */
export const MaintenancePayload = z.object({}).strict();
export const MAINTENANCE_TASKS = [
  'reconcile-brand-reviews',
  'reconcile-ad-reviews',
  'reconcile-audiences',
  'reconcile-ingest-runs',
  'ingest-retention',
  'compact-store',
] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];
