import type { FastifyReply } from 'fastify';
import { QueryCancelledError } from '../../store/store.js';

/**
 * Runs work that can be cancelled (long insights reads) with a signal that
 * aborts when the client closes its connection before the response is
 * written, so DuckDB stops the query instead of computing a page nobody
 * reads. Nobody is left to answer, so the reply is taken over and closed
 * (resolving to undefined) and the log says "cancelled" rather than showing a
 * server error.
 */
export async function untilClientGone<T>(reply: FastifyReply, work: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
  const controller = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  // The client may have left before this ran (while its request was authenticated, say): that close event
  // is past, so the work starts already cancelled rather than running with nobody to stop it.
  if (reply.raw.destroyed) onClose();
  try {
    return await work(controller.signal);
  } catch (err) {
    if (!(err instanceof QueryCancelledError)) throw err;
    reply.log.info({ reqId: reply.request.id }, 'client went away; its query was cancelled');
    reply.hijack();
    reply.raw.destroy();
    return undefined;
  } finally {
    reply.raw.off('close', onClose);
  }
}
