import { z } from 'zod';

/** Job payloads, validated when enqueued and again when processed. */
export const BrandReviewPayload = z
  .object({
    accountId: z.string().min(1),
    reviewSeq: z.number().int().min(1),
  })
  .strict();
export type BrandReviewPayload = z.infer<typeof BrandReviewPayload>;

export const AudienceProcessingPayload = z.object({ audienceId: z.string().min(1) }).strict();
export type AudienceProcessingPayload = z.infer<typeof AudienceProcessingPayload>;

/** Maintenance jobs carry no data; the job name says what to do. */
export const MaintenancePayload = z.object({}).strict();
export const MAINTENANCE_TASKS = ['reconcile-brand-reviews', 'reconcile-audiences'] as const;
export type MaintenanceTask = (typeof MAINTENANCE_TASKS)[number];
