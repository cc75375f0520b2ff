import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { request } from 'node:http';
import { z } from 'zod';
import { ApiError } from '../errors/api-error.js';
import { isErrorCode } from '../errors/error-codes.js';

/** True when something accepts connections on the socket. */
export function connectable(socketPath: string): Promise<boolean> {
  if (!existsSync(socketPath)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const s = connect(socketPath);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

const ErrorReply = z.object({
  error: z.object({ message: z.string(), code: z.string().nullable(), param: z.string().nullable() }),
});
const OkReply = z.object({ result: z.unknown() });

/**
 * Sends an operator command to the running service. Returns `{ reached: false }`
 * when no service listens (the caller then opens the store itself).
 */
export async function sendAdminCommand(socketPath: string, name: string, input: unknown): Promise<{ reached: false } | { reached: true; result: unknown }> {
  if (!(await connectable(socketPath))) return { reached: false };
  const body = JSON.stringify(input ?? {});
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      { socketPath, path: `/commands/${name}`, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  const json: unknown = JSON.parse(text);
  if (status >= 400) {
    const e = ErrorReply.parse(json).error;
    throw new ApiError(isErrorCode(e.code) ? e.code : 'internal_error', e.message, { param: e.param });
  }
  return { reached: true, result: OkReply.parse(json).result };
}
