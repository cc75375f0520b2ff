import { mkdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors/api-error.js';
import { randomToken } from '../ids.js';
import type { Store } from '../store/store.js';
import { createRun, getRun, type IngestRun, type IngestScheduler } from './ingest-runs.js';
import { loadEventFile, type CheckedIssue, type LoadSummary } from './load-events.js';

/**
 * `POST /v1/events`: a batch of events (a JSON array or NDJSON lines) for the
 * key's account. The batch is written to the data dir before the answer, so an
 * accepted batch survives a crash; a run then loads it like any file.
 */
export const MAX_EVENTS_PER_REQUEST = 10_000;
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** Rows a check-only request lists of those it would quarantine (the counts cover all). */
export const VALIDATION_ISSUES = 100;

export interface ValidationResult extends LoadSummary {
  object: 'ingest_validation';
  /** The first rows (by line) that would be quarantined, with their reason: which events to fix. */
  quarantined_rows: CheckedIssue[];
}

/** One NDJSON line per event, as given (a non-object becomes a line the loader quarantines). */
export function batchLines(body: unknown, ndjson: boolean): string[] {
  let lines: string[];
  if (ndjson) {
    lines = String(body ?? '').split(/\r?\n/);
    while (lines.length > 0 && (lines.at(-1) as string).trim() === '') lines.pop();
  } else {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError('invalid_type', 'Send {"events": [...]} or NDJSON lines (content-type application/x-ndjson).', { param: null });
    }
    const extra = Object.keys(body).find((k) => k !== 'events' && k !== 'validate_only');
    if (extra !== undefined) throw new ApiError('unknown_parameter', `Unknown parameter: ${extra}.`, { param: extra });
    const events = (body as { events?: unknown }).events;
    if (events === undefined) throw new ApiError('missing_required_parameter', 'Send {"events": [...]} or NDJSON lines (content-type application/x-ndjson).', { param: 'events' });
    if (!Array.isArray(events)) throw new ApiError('invalid_type', 'events must be an array of event objects.', { param: 'events' });
    lines = events.map((e) => JSON.stringify(e));
  }
  if (lines.length === 0) throw new ApiError('invalid_value', 'The batch has no events.', { param: 'events' });
  if (lines.length > MAX_EVENTS_PER_REQUEST) {
    throw new ApiError('request_too_large', `At most ${MAX_EVENTS_PER_REQUEST} events a request; this one has ${lines.length}. Split it.`, { param: 'events' });
  }
  return lines;
}

export async function submitEvents(
  deps: { store: Store; clock: Clock; dataDir: string; ingestJobs: IngestScheduler },
  accountId: string,
  lines: string[],
  validateOnly: boolean,
): Promise<IngestRun | ValidationResult> {
  const dir = join(deps.dataDir, 'ingest');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `batch-${deps.clock.nowMs()}-${randomToken(10)}.ndjson`);
  await writeFile(path, lines.join('\n') + '\n', { flush: true });
  if (validateOnly) {
    try {
      const { issues, ...summary } = await loadEventFile(
        deps,
        { runId: 'validate_only', path, format: 'ndjson', source: 'request', scopeAccountId: accountId },
        { dryRun: { issues: VALIDATION_ISSUES } },
      );
      return { object: 'ingest_validation', ...summary, quarantined_rows: issues ?? [] };
    } finally {
      await rm(path, { force: true });
    }
  }
  const runId = await createRun(deps, { accountId, origin: 'api', files: [{ path, format: 'ndjson', source: 'request' }] });
  // The run is recorded first: if queueing fails, the reconciler queues it.
  await deps.ingestJobs.schedule(runId);
  return getRun(deps, runId, accountId);
}
