import type { DefaultJobOptions } from 'bullmq';

/**
 * Queue names. Every queue key in Redis is under the configured prefix
 * (`ADSVC_QUEUE_PREFIX`, by default one derived from the data dir), so two
 * services, or two tests, that share a Redis never take each other's jobs.
 */
export const QUEUE = {
  brandReview: 'brand-review',
  adReview: 'ad-review',
  audienceProcessing: 'audience-processing',
  ingest: 'ingest',
  /** Periodic upkeep (reconcilers), driven by job schedulers. */
  maintenance: 'maintenance',
  /** Webhook delivery attempts, and the webhook reconciler's scheduled runs. */
  webhookDelivery: 'webhook-delivery',
} as const;
export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** BullMQ refuses ':' in custom job ids; ids are built from parts joined by '-'. */
export const jobId = (...parts: (string | number)[]): string => parts.map(String).join('-').replaceAll(':', '_');
