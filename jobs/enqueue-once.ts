import type { Queue } from 'bullmq';

/**
 * Adds a job under a deterministic id, so queueing the same work twice (a
 * retry, a reconciler) adds it once. A job that used up its attempts keeps
 * its id and would make the add a no-op, so it is retried instead.
 */
export async function enqueueOnce(queue: Queue, name: string, id: string, payload: object, delayMs = 0): Promise<void> {
  const existing = await queue.getJob(id);
  if (existing && (await existing.isFailed())) await existing.retry('failed');
  else await queue.add(name, payload, { jobId: id, delay: Math.max(0, delayMs) });
}
