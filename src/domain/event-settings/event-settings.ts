import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors/api-error.js';
import { parseOrThrow } from '../../errors/zod-issues.js';
import { newId } from '../../ids.js';
import { listPage, toListEnvelope, type ListEnvelope, type ListParams } from '../../store/list-page.js';
import { sql } from '../../store/sql-loader.js';
import type { Row, Store } from '../../store/store.js';
import { CLICK_WINDOWS, STANDARD_EVENTS, isStandardEvent } from '../standard-events.js';
import { label } from '../text.js';

/**
 * Conversion event settings (COMPAT.md): which event counts as a goal. A
 * setting names a standard event, or `custom` with a custom event name.
 */
export const EVENT_SETTING_PREFIX = 'evset_';

export const CreateEventSettingInput = z
  .object({
    name: label(1, 256),
    event_type: z.enum([...STANDARD_EVENTS, 'custom']),
    custom_event_name: label(1, 256).nullish(),
    attribution_window_days: z
      .union(CLICK_WINDOWS.map((d) => z.literal(d)) as [z.ZodLiteral<7>, z.ZodLiteral<14>, z.ZodLiteral<30>])
      .default(30),
  })
  .strict()
  .superRefine((v, ctx) => {
    const custom = v.custom_event_name ?? null;
    if (v.event_type === 'custom' && custom === null) {
      ctx.addIssue({ code: 'custom', path: ['custom_event_name'], message: 'is required when event_type is custom', params: { code: 'missing_required_parameter' } });
    } else if (v.event_type !== 'custom' && custom !== null) {
      ctx.addIssue({ code: 'custom', path: ['custom_event_name'], message: 'is only allowed when event_type is custom' });
    } else if (custom !== null && isStandardEvent(custom)) {
      ctx.addIssue({ code: 'custom', path: ['custom_event_name'], message: `'${custom}' is a standard event; use event_type ${custom}` });
    }
  });

const Record = z.object({
  id: z.string(),
  ad_account_id: z.string(),
  name: z.string(),
  event_type: z.string(),
  custom_event_name: z.string().nullable(),
  attribution_window_days: z.number().int(),
  archived: z.boolean(),
  created_at_ms: z.number(),
  updated_at_ms: z.number(),
});
export type EventSettingRecord = z.infer<typeof Record>;

export interface EventSetting {
  id: string;
  object: 'conversion_event_setting';
  ad_account_id: string;
  name: string;
  event_type: string;
  custom_event_name: string | null;
  attribution_window_days: number;
  archived: boolean;
  created_at: number;
  updated_at: number;
}

const toWire = (r: EventSettingRecord): EventSetting => ({
  id: r.id,
  object: 'conversion_event_setting',
  ad_account_id: r.ad_account_id,
  name: r.name,
  event_type: r.event_type,
  custom_event_name: r.custom_event_name,
  attribution_window_days: r.attribution_window_days,
  archived: r.archived,
  created_at: Math.floor(r.created_at_ms / 1000),
  updated_at: Math.floor(r.updated_at_ms / 1000),
});

const parseRow = (row: Row | undefined, id: string): EventSettingRecord => {
  if (!row) throw ApiError.notFound('conversion event setting', id);
  return Record.parse(row);
};

interface Deps {
  store: Store;
  clock: Clock;
}

export async function createEventSetting(deps: Deps, accountId: string, raw: unknown): Promise<EventSetting> {
  const input = parseOrThrow(CreateEventSettingInput, raw ?? {});
  const [row] = await deps.store.write(sql('event-setting-insert'), {
    id: newId(EVENT_SETTING_PREFIX),
    account: accountId,
    name: input.name,
    event_type: input.event_type,
    custom_event_name: input.custom_event_name ?? null,
    window: input.attribution_window_days,
    now_ms: deps.clock.nowMs(),
  });
  return toWire(parseRow(row, 'new'));
}

export async function getEventSettingRecord(deps: Pick<Deps, 'store'>, accountId: string, id: string): Promise<EventSettingRecord> {
  return parseRow(await deps.store.get(sql('event-setting-get'), { id, account: accountId }), id);
}

export async function getEventSetting(deps: Pick<Deps, 'store'>, accountId: string, id: string): Promise<EventSetting> {
  return toWire(await getEventSettingRecord(deps, accountId, id));
}

export async function archiveEventSetting(deps: Deps, accountId: string, id: string): Promise<EventSetting> {
  const [row] = await deps.store.write(sql('event-setting-archive'), { id, account: accountId, now_ms: deps.clock.nowMs() });
  return toWire(parseRow(row, id));
}

export async function listEventSettings(
  deps: Pick<Deps, 'store'>,
  accountId: string,
  params: ListParams & { archived?: boolean | undefined },
): Promise<ListEnvelope<EventSetting>> {
  const { rows, hasMore } = await listPage(deps.store, 'conversion_event_settings', accountId, params, { archived: params.archived });
  return toListEnvelope(
    rows.map((r) => toWire(Record.parse(r))),
    hasMore,
  );
}
