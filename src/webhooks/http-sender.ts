/**
 * One HTTP POST of a webhook. Redirects are never followed (spec, Events 6:
 * a 3xx counts as a failure), and the whole exchange up to the response
 * status has a time limit (spec, Events 5: an answer within a few seconds).
 */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export type SendResult =
  | { status: number; location: string | null }
  | { status: null; error: string };

export type WebhookSender = (req: WebhookRequest) => Promise<SendResult>;

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  // fetch wraps network errors ("fetch failed"); the cause says what happened (ECONNREFUSED, reset, DNS).
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.message === 'string') return typeof cause.code === 'string' ? `${cause.code}: ${cause.message}` : cause.message;
  return err instanceof Error ? err.message : String(err);
}

export const fetchSender: WebhookSender = async (req) => {
  try {
    const res = await fetch(req.url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    // Only the status matters; drop the body so the connection is freed.
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status, location: res.headers.get('location') };
  } catch (err) {
    return { status: null, error: describe(err, req.timeoutMs) };
  }
};
