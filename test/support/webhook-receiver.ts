import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback HTTP server that plays a webhook receiver: every request is
 * recorded, and `answer` decides what it gets (a status, no answer at all,
 * or a dropped connection).
 */
export type Answer = { status: number; headers?: Record<string, string> } | { hang: true } | { reset: true };

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Receiver clock (ms) when the request was read. */
  at: number;
  answer: Answer;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startReceiver(answer: (req: Omit<ReceivedRequest, 'answer' | 'at'>) => Answer = () => ({ status: 200 }), port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const a = answer(seen);
      requests.push({ ...seen, at: Date.now(), answer: a });
      if ('hang' in a) return;
      if ('reset' in a) {
        req.socket.destroy();
        return;
      }
      res.writeHead(a.status, a.headers ?? {});
      res.end('ok');
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
