import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/** The process logger: JSON lines on stderr for the CLI, stdout for `serve`. */
export function createLogger(level: LogLevel, destination: 1 | 2 = 1): Logger {
  return pino({ level, base: { svc: 'adsvc' } }, pino.destination({ fd: destination, sync: true }));
}

/** The slice of a logger that domain-adjacent code (jobs, runtime) uses. */
export interface LogSink {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
