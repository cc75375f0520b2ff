import type { FastifyReply } from 'fastify';
import { ApiError } from '../../errors/api-error.js';
import { QueryCancelledError } from '../../store/store.js';

/**
 * Runs work that can be cancelled (long insights reads) with a signal that
 * aborts when the client closes its connection before the response is
 * written, so DuckDB stops the query instead of computing a page nobody
 * reads. The cancelled request ends as 499 (client closed request): nobody
 * receives it, but the log shows a cancellation rather than a server error.
 */
export async function untilClientGone<T>(reply: FastifyReply, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  try {
    return await work(controller.signal);
  } catch (err) {
    if (err instanceof QueryCancelledError) throw new ApiError('client_closed_request', 'The client closed the connection; the query was cancelled.', { cause: err });
    throw err;
  } finally {
    reply.raw.off('close', onClose);
  }
}
