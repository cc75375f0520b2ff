import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import { INGEST_BATCH_RUNS, INGEST_CHUNK_LINES } from './ingest/event-contract.js';

/**
 * The one place that reads configuration. `loadConfig` takes an environment
 * object (the caller passes `process.env`), validates it with zod and returns a
 * frozen value that is passed down explicitly; nothing else reads the env.
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const intFromEnv = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** The issue's defaults: per minute, per account and per client IP; growth of 50% per 15 minutes past 300 a minute. */
export const RATE_LIMIT_DEFAULTS = { perEndpoint: 600, overall: 1200, growthThreshold: 300, growthPercent: 50, growthWindowMinutes: 15 } as const;

/** Default DuckDB memory limit (ADSVC_DUCKDB_MEMORY_LIMIT). */
export const DUCKDB_MEMORY_LIMIT = '1GB';

export const RETENTION_DEFAULTS = { quarantineRetentionDays: 90, failedBatchRetentionDays: 7 } as const;

const EnvSchema = z.object({
  PORT: intFromEnv(0, 65535).default(8080),
  ADSVC_HOST: z.string().trim().min(1).default('0.0.0.0'),
  ADSVC_DATA_DIR: z.string().trim().min(1).default('./data'),
  REDIS_URL: z
    .string()
    .trim()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  ADSVC_LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
  ADSVC_REVIEW_DELAY_MS: intFromEnv(0, 86_400_000).default(5000),
  ADSVC_QUEUE_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'letters, digits, _ . : - only, at most 64')
    .optional(),
  ADSVC_SHUTDOWN_TIMEOUT_MS: intFromEnv(100, 600_000).default(10_000),
  ADSVC_PUBLIC_URL: z
    .string()
    .trim()
    .regex(/^https?:\/\/[^/\s]+(\/[^\s]*)?$/, 'must be an absolute http(s) URL')
    .transform((s) => s.replace(/\/+$/, ''))
    .optional(),
  ADSVC_FETCH_ALLOW_PRIVATE: z.enum(['0', '1', 'true', 'false']).default('0'),
  ADSVC_FETCH_TIMEOUT_MS: intFromEnv(100, 120_000).default(10_000),
  ADSVC_UPLOAD_MAX_BYTES: intFromEnv(1024, 1024 * 1024 * 1024).default(20 * 1024 * 1024),
  ADSVC_AUDIENCE_MIN_SIZE: intFromEnv(0, 1_000_000_000).default(25_000),
  ADSVC_QUARANTINE_RETENTION_DAYS: intFromEnv(1, 36_500).default(RETENTION_DEFAULTS.quarantineRetentionDays),
  ADSVC_INGEST_CHUNK_LINES: intFromEnv(1, 100_000_000).default(INGEST_CHUNK_LINES),
  ADSVC_INGEST_BATCH_RUNS: intFromEnv(1, 1000).default(INGEST_BATCH_RUNS),
  ADSVC_FAILED_BATCH_RETENTION_DAYS: intFromEnv(1, 36_500).default(RETENTION_DEFAULTS.failedBatchRetentionDays),
  ADSVC_DUCKDB_MEMORY_LIMIT: z
    .string()
    .trim()
    .regex(/^[0-9]+(\.[0-9]+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'a size such as 1536MB or 4GiB')
    .default(DUCKDB_MEMORY_LIMIT),
  ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST: z.enum(['0', '1', 'true', 'false']).default('0'),
  ADSVC_WEBHOOK_TIME_SCALE: z
    .string()
    .trim()
    .regex(/^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/, 'must be a positive number')
    .transform(Number)
    .pipe(z.number().gt(0, 'must be above 0').max(100))
    .default(1),
  ADSVC_WEBHOOK_TIMEOUT_MS: intFromEnv(100, 60_000).default(5000),
  // Rate limits (README "Rate limits"; COMPAT.md, Transport: 600 a minute per endpoint, 1,200 overall).
  ADSVC_RATE_LIMIT_PER_ENDPOINT: intFromEnv(1, 100_000_000).default(RATE_LIMIT_DEFAULTS.perEndpoint),
  ADSVC_RATE_LIMIT_OVERALL: intFromEnv(1, 100_000_000).default(RATE_LIMIT_DEFAULTS.overall),
  ADSVC_RATE_LIMIT_GROWTH_THRESHOLD: intFromEnv(1, 100_000_000).default(RATE_LIMIT_DEFAULTS.growthThreshold),
  ADSVC_RATE_LIMIT_GROWTH_PERCENT: intFromEnv(1, 1000).default(RATE_LIMIT_DEFAULTS.growthPercent),
  ADSVC_RATE_LIMIT_GROWTH_WINDOW_MINUTES: intFromEnv(1, 1440).default(RATE_LIMIT_DEFAULTS.growthWindowMinutes),
  ADSVC_RATE_LIMIT_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'letters, digits, _ . : - only, at most 64')
    .default('adsvc-ratelimit'),
  // Overload shedding: 0 turns a signal off.
  ADSVC_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: intFromEnv(0, 60_000).default(200),
  ADSVC_OVERLOAD_MAX_HEAP_PERCENT: intFromEnv(0, 100).default(90),
  ADSVC_OVERLOAD_MAX_QUERIES_IN_FLIGHT: intFromEnv(0, 100_000).default(32),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Absolute path of the data directory (DuckDB file, uploads, embedded Redis). */
  readonly dataDir: string;
  /** Explicit Redis URL; when absent `serve` probes 127.0.0.1:6379, then starts its own. */
  readonly redisUrl: string | undefined;
  readonly logLevel: LogLevel;
  readonly reviewDelayMs: number;
  /** BullMQ key prefix; defaults to one derived from the data dir so two data dirs never share jobs. */
  readonly queuePrefix: string;
  readonly shutdownTimeoutMs: number;
  /** Base URL clients reach the service at; file URLs (preview_url, image_url) start with it. */
  readonly publicUrl: string;
  /**
   * Let `image_url` fetches reach private, loopback and link-local addresses.
   * Off by default (server-side request forgery); tests turn it on to fetch
   * from a local server.
   */
  readonly fetchAllowPrivate: boolean;
  readonly fetchTimeoutMs: number;
  /** Largest accepted upload or fetched file. */
  readonly uploadMaxBytes: number;
  /** Matched users a custom audience needs to be eligible for inclusion. */
  readonly audienceMinSize: number;
  /** Quarantined rows are kept this long after their run (the run's counts stay). */
  readonly quarantineRetentionDays: number;
  /** Lines of an event file loaded per transaction: what a load holds in memory at once grows with it. */
  readonly ingestChunkLines: number;
  /** Queued `POST /v1/events` runs of one account the ingest worker loads together (1: each alone). */
  readonly ingestBatchRuns: number;
  /** Batches of `POST /v1/events` whose run failed are kept this long for diagnosis; those of succeeded runs go at once. */
  readonly failedBatchRetentionDays: number;
  /**
   * DuckDB `memory_limit`: its buffer pool (cached blocks of the database,
   * scratch tables, hash tables and sorts); past it, operators and scratch
   * tables spill to `<db>.tmp`. DuckDB's own default, 80% of RAM, let a
   * 10M-event load grow the process to 7–11 GiB; with 1GB it peaks at
   * 1.5–1.8 GiB (bench ingest). Insights are 10–35% faster with a larger
   * limit (bench query, 50M events, 16GB).
   */
  readonly duckdbMemoryLimit: string;
  /** Accept http:// webhook URLs to loopback addresses (development and tests). */
  readonly webhookAllowInsecureLocalhost: boolean;
  /** Multiplies every webhook retry delay and the 72-hour retry window (tests compress the schedule). */
  readonly webhookTimeScale: number;
  /** How long a webhook attempt waits for an answer. */
  readonly webhookTimeoutMs: number;
  /** Requests a minute, per account and per client IP; processes with one Redis and prefix share them. */
  readonly rateLimits: {
    readonly perEndpoint: number;
    readonly overall: number;
    readonly prefix: string;
    /** Past `threshold` requests a minute, an account may grow by `percent` per `windowMinutes`. */
    readonly growth: { readonly threshold: number; readonly percent: number; readonly windowMinutes: number };
  };
  /** When this process sheds requests with 503 server_is_overloaded; 0 turns a signal off. */
  readonly overload: {
    readonly maxEventLoopDelayMs: number;
    /** Percent of V8's heap limit in use. */
    readonly maxHeapPercent: number;
    /** DuckDB reads running or waiting for a connection. */
    readonly maxQueriesInFlight: number;
  };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: Readonly<Record<string, string | undefined>>, cwd: string = process.cwd()): Config {
  // Empty strings count as unset, as shells often export VAR= to clear it.
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') cleaned[k] = v;
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const dataDir = resolve(cwd, e.ADSVC_DATA_DIR);
  return Object.freeze({
    port: e.PORT,
    host: e.ADSVC_HOST,
    dataDir,
    redisUrl: e.REDIS_URL,
    logLevel: e.ADSVC_LOG_LEVEL ?? e.LOG_LEVEL ?? 'info',
    reviewDelayMs: e.ADSVC_REVIEW_DELAY_MS,
    queuePrefix: e.ADSVC_QUEUE_PREFIX ?? defaultQueuePrefix(dataDir),
    shutdownTimeoutMs: e.ADSVC_SHUTDOWN_TIMEOUT_MS,
    publicUrl: e.ADSVC_PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    fetchAllowPrivate: e.ADSVC_FETCH_ALLOW_PRIVATE === '1' || e.ADSVC_FETCH_ALLOW_PRIVATE === 'true',
    fetchTimeoutMs: e.ADSVC_FETCH_TIMEOUT_MS,
    uploadMaxBytes: e.ADSVC_UPLOAD_MAX_BYTES,
    audienceMinSize: e.ADSVC_AUDIENCE_MIN_SIZE,
    quarantineRetentionDays: e.ADSVC_QUARANTINE_RETENTION_DAYS,
    ingestChunkLines: e.ADSVC_INGEST_CHUNK_LINES,
    ingestBatchRuns: e.ADSVC_INGEST_BATCH_RUNS,
    failedBatchRetentionDays: e.ADSVC_FAILED_BATCH_RETENTION_DAYS,
    duckdbMemoryLimit: e.ADSVC_DUCKDB_MEMORY_LIMIT,
    webhookAllowInsecureLocalhost: e.ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST === '1' || e.ADSVC_WEBHOOK_ALLOW_INSECURE_LOCALHOST === 'true',
    webhookTimeScale: e.ADSVC_WEBHOOK_TIME_SCALE,
    webhookTimeoutMs: e.ADSVC_WEBHOOK_TIMEOUT_MS,
    rateLimits: Object.freeze({
      perEndpoint: e.ADSVC_RATE_LIMIT_PER_ENDPOINT,
      overall: e.ADSVC_RATE_LIMIT_OVERALL,
      prefix: e.ADSVC_RATE_LIMIT_PREFIX,
      growth: Object.freeze({
        threshold: e.ADSVC_RATE_LIMIT_GROWTH_THRESHOLD,
        percent: e.ADSVC_RATE_LIMIT_GROWTH_PERCENT,
        windowMinutes: e.ADSVC_RATE_LIMIT_GROWTH_WINDOW_MINUTES,
      }),
    }),
    overload: Object.freeze({
      maxEventLoopDelayMs: e.ADSVC_OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
      maxHeapPercent: e.ADSVC_OVERLOAD_MAX_HEAP_PERCENT,
      maxQueriesInFlight: e.ADSVC_OVERLOAD_MAX_QUERIES_IN_FLIGHT,
    }),
  });
}

export function defaultQueuePrefix(dataDir: string): string {
  return `adsvc-${createHash('sha256').update(dataDir).digest('hex').slice(0, 10)}`;
}
