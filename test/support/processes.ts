import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { projectRoot } from '../../src/store/project-root.js';
import { deleteRedisPrefix, redisUrl, tempDir, TEST_LIMITS, uniquePrefix } from './context.js';

/** The built CLI, as a user runs it (`npm test` builds first). */
export const CLI = join(projectRoot(), 'dist', 'src', 'main.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], ...extra };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Serve children still running; killed when the test process exits, so a timed-out test leaves no orphan. */
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `adsvc serve [args]` on a free port and waits until it logs that it serves. */
export function startServe(args: string[], env: Record<string, string | undefined>): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', ...args], {
      // Test limits and a key space of its own, unless the test sets them (see TEST_LIMITS).
      env: childEnv({ PORT: '0', ADSVC_HOST: '127.0.0.1', ...TEST_LIMITS, ADSVC_RATE_LIMIT_PREFIX: uniquePrefix(), ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    children.add(child);
    const exited = new Promise<number | null>((r) =>
      child.once('exit', (code) => {
        children.delete(child);
        r(code);
      }),
    );
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in time\nstdout:\n${out}\nstderr:\n${err}`));
    }, 30_000);
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"adsvc serving"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          child,
          url: m[1] as string,
          stdout: () => out,
          stderr: () => err,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before serving\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}

/**
 * A `serve` child for the tests of one describe block: its own data dir and
 * queue prefix, started before them and stopped (with its Redis keys and
 * files removed) after.
 */
export function useServe(extraEnv: Record<string, string> = {}): { dataDir: string; env: Record<string, string>; serve(): ServeProcess } {
  const dir = tempDir();
  const prefix = uniquePrefix();
  const env = { ADSVC_DATA_DIR: dir.path, REDIS_URL: redisUrl(), ADSVC_QUEUE_PREFIX: prefix, ...extraEnv };
  let running: ServeProcess | undefined;
  beforeAll(async () => {
    running = await startServe([], env);
  });
  afterAll(async () => {
    await running?.stop();
    await deleteRedisPrefix(redisUrl(), prefix);
    dir.cleanup();
  });
  return {
    dataDir: dir.path,
    env,
    serve: () => {
      if (!running) throw new Error('serve is not running yet');
      return running;
    },
  };
}
