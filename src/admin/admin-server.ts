import { existsSync, unlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { ApiError, toApiError } from '../errors/api-error.js';
import type { LogSink } from '../logger.js';
import { isCommandName, runCommand, type CommandContext } from './commands.js';
import { connectable } from './admin-client.js';

const MAX_BODY = 1024 * 1024;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError('request_too_large', 'admin command body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'admin command body is not JSON');
  }
}

/**
 * The CLI's way in while `serve` owns the DuckDB file: HTTP over a Unix socket
 * in the data dir (mode 0600, so only the owner of the data dir may use it).
 * `POST /commands/<name>` runs an operator command; `GET /health` answers pid.
 */
export async function startAdminServer(socketPath: string, ctx: CommandContext, log: LogSink): Promise<{ close(): Promise<void> }> {
  if (existsSync(socketPath)) {
    if (await connectable(socketPath)) throw new Error(`another adsvc service is already listening on ${socketPath}`);
    unlinkSync(socketPath); // left by a process that died
  }
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    void (async () => {
      try {
        if (req.method === 'GET' && req.url === '/health') return send(200, { ok: true, pid: process.pid });
        const m = /^\/commands\/([a-z.]+)$/.exec(req.url ?? '');
        if (req.method !== 'POST' || !m || !isCommandName(m[1] as string)) {
          throw new ApiError('route_not_found', `unknown admin route ${req.method} ${req.url}`);
        }
        const input = await readJson(req);
        send(200, { result: await runCommand(ctx, m[1] as Parameters<typeof runCommand>[1], input) });
      } catch (err) {
        const api = toApiError(err);
        if (api.status >= 500) log.error({ err: api.cause ?? api }, 'admin command failed');
        send(api.status, api.toBody());
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: socketPath, readableAll: false, writableAll: false }, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
