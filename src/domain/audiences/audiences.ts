import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { newId } from '../../ids.js';
import { fileRepository } from '../../store/repositories/file-repository.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../../store/list-page.js';
import { sql } from '../../store/sql-loader.js';
import { sqlList, type Row, type Store } from '../../store/store.js';
import { fileBlobPath, requireFile } from '../files/files.js';
import { label } from '../text.js';
import { IDENTIFIER_TYPES, parseCustomerList, type IdentifierType } from './audience-identifiers.js';

/**
 * Custom audiences from uploaded customer lists (COMPAT.md, Files and
 * audiences). A processing job counts distinct identifiers; at or above the
 * planning threshold the audience is `ready` (eligible for inclusion and
 * exclusion), below it `too_small` (a small or empty list: exclusion only).
 */
export const AUDIENCE_PREFIX = 'caud_';
export const AUDIENCE_STATUSES = ['processing', 'ready', 'too_small', 'failed', 'archived'] as const;
export type AudienceStatus = (typeof AUDIENCE_STATUSES)[number];

export const CreateAudienceInput = z
  .object({
    name: label(1, 256),
    description: z.string().max(10_000).nullish(),
    file_id: z.string().min(1).max(128),
    filename: z.string().min(1).max(1024),
    mimetype: z.string().min(1).max(255),
    file_size: z.number().int().min(1),
    identifier_type: z.enum(IDENTIFIER_TYPES).default('email'),
  })
  .strict();

const AudienceRecord = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  file_id: z.string(),
  filename: z.string(),
  mimetype: z.string(),
  file_size: z.number(),
  identifier_type: z.enum(IDENTIFIER_TYPES),
  status: z.enum(AUDIENCE_STATUSES),
  failure_reason: z.string().nullable(),
  size: z.number().nullable(),
  membership_version: z.number().int(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
type AudienceRecord = z.infer<typeof AudienceRecord>;

export interface CustomAudience {
  id: string;
  object: 'custom_audience';
  name: string;
  description: string | null;
  status: AudienceStatus;
  failure_reason: string | null;
  size: number | null;
  identifier_type: IdentifierType;
  file_id: string;
  filename: string;
  mimetype: string;
  file_size: number;
  eligible_for_inclusion: boolean;
  eligible_for_exclusion: boolean;
  created_at: number;
  updated_at: number;
}

const toWire = (r: AudienceRecord): CustomAudience => ({
  id: r.id,
  object: 'custom_audience',
  name: r.name,
  description: r.description,
  status: r.status,
  failure_reason: r.failure_reason,
  size: r.size,
  identifier_type: r.identifier_type,
  file_id: r.file_id,
  filename: r.filename,
  mimetype: r.mimetype,
  file_size: r.file_size,
  eligible_for_inclusion: r.status === 'ready',
  eligible_for_exclusion: r.status === 'ready' || r.status === 'too_small',
  created_at: Math.floor(r.created_at_ms / 1000),
  updated_at: Math.floor(r.updated_at_ms / 1000),
});

const parseAudience = (row: Row | undefined, id: string): AudienceRecord => {
  if (!row) throw ApiError.notFound('custom audience', id);
  return AudienceRecord.parse(row);
};

/** Queues the processing of a new audience; implemented over BullMQ in jobs/. */
export interface AudienceProcessingScheduler {
  schedule(audienceId: string): Promise<void>;
}

interface Deps {
  store: Store;
  clock: Clock;
}

export async function createAudience(
  deps: Deps & { audienceJobs: AudienceProcessingScheduler },
  accountId: string,
  raw: unknown,
): Promise<CustomAudience> {
  const input = parseOrThrow(CreateAudienceInput, raw ?? {});
  const file = await requireFile(deps, accountId, input.file_id, { purpose: 'custom_audience', param: 'file_id' });
  // The create call restates what was uploaded; a mismatch means the wrong file.
  const checks: [keyof typeof input, unknown, unknown][] = [
    ['filename', input.filename, file.filename],
    ['mimetype', input.mimetype, file.mime_type],
    ['file_size', input.file_size, file.size_bytes],
  ];
  for (const [param, given, actual] of checks) {
    if (given !== actual) {
      throw new ApiError('invalid_value', `${param} does not match the uploaded file (${JSON.stringify(actual)}).`, { param });
    }
  }
  const [row] = await deps.store.write(sql('audience-insert'), {
    id: newId(AUDIENCE_PREFIX),
    account: accountId,
    name: input.name,
    description: input.description ?? null,
    file_id: file.id,
    filename: input.filename,
    mimetype: input.mimetype,
    file_size: input.file_size,
    identifier_type: input.identifier_type,
    now_ms: deps.clock.nowMs(),
  });
  const audience = parseAudience(row, 'new');
  // The row says processing before the job exists: if queueing fails, the reconciler re-queues it.
  await deps.audienceJobs.schedule(audience.id);
  return toWire(audience);
}

export async function getAudience(deps: Pick<Deps, 'store'>, accountId: string, id: string): Promise<CustomAudience> {
  return toWire(parseAudience(await deps.store.get(sql('audience-get'), { id, account: accountId }), id));
}

export async function archiveAudience(deps: Deps, accountId: string, id: string): Promise<CustomAudience> {
  const [row] = await deps.store.write(sql('audience-archive'), { id, account: accountId, now_ms: deps.clock.nowMs() });
  return toWire(parseAudience(row, id));
}

export async function listAudiences(
  deps: Pick<Deps, 'store'>,
  accountId: string,
  params: ListParams & { intended_use?: 'inclusion' | 'exclusion' | undefined },
): Promise<ListEnvelope<CustomAudience>> {
  // intended_use filters a page after reading it would break page sizes, so it is a column filter.
  const statuses = params.intended_use === 'inclusion' ? ['ready'] : params.intended_use === 'exclusion' ? ['ready', 'too_small'] : undefined;
  const { rows, hasMore } = await listPage(deps.store, 'custom_audiences', accountId, params, {}, { status: statuses });
  return toListEnvelope(
    rows.map((r) => toWire(AudienceRecord.parse(r))),
    hasMore,
  );
}

/**
 * The processing job's work: parse the stored list, write the member hashes
 * and settle the status, in one transaction. A no-op unless still processing.
 */
export async function processAudience(deps: Deps & { dataDir: string; minSize: number }, audienceId: string): Promise<CustomAudience | undefined> {
  const audience = AudienceRecord.safeParse(await deps.store.get(sql('audience-get-any'), { id: audienceId }));
  if (!audience.success || audience.data.status !== 'processing') return undefined;
  const a = audience.data;
  const file = await fileRepository.get(deps.store, a.ad_account_id, a.file_id);
  let text: string | undefined;
  if (file) text = await readFile(fileBlobPath(deps, file), 'utf8').catch(() => undefined);
  const settle = async (status: AudienceStatus, reason: string | null, size: number | null, hashes: string[]) =>
    deps.store.transaction(async (tx) => {
      await tx.run(sql('audience-members-clear'), { id: a.id });
      if (hashes.length > 0) await tx.run(sql('audience-members-replace'), { id: a.id, hashes: sqlList(hashes) });
      const [row] = await tx.write(sql('audience-settle'), { id: a.id, status, failure_reason: reason, size, now_ms: deps.clock.nowMs() });
      return row === undefined ? undefined : toWire(AudienceRecord.parse(row));
    });
  if (text === undefined) return settle('failed', 'file_unreadable', null, []);
  const csv = a.mimetype.includes('csv') || a.filename.toLowerCase().endsWith('.csv');
  const parsed = parseCustomerList(text, a.identifier_type, csv);
  const size = parsed.hashes.length;
  return settle(size >= deps.minSize ? 'ready' : 'too_small', null, size, parsed.hashes);
}

export async function pendingAudienceIds(store: Store): Promise<string[]> {
  return (await store.all(sql('audiences-processing'))).map((r) => String(r['id']));
}
