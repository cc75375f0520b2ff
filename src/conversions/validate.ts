import { ApiError } from '../errors/api-error.js';
import { sql } from '../store/sql-loader.js';
import { sqlList, type Queryable } from '../store/store.js';
import type { ConversionLevel, ConversionRequest } from './request.js';

/**
 * Rules of a conversion insights request that need the account's data
 * (spec: Conversion insights, Validation). Both are per account, whatever
 * entities and dates the request asks for.
 */
const LEVEL_TABLE: Record<ConversionLevel, string> = { campaign: 'campaigns', ad_group: 'ad_groups', ad: 'ads' };
const LEVEL_WHAT: Record<ConversionLevel, string> = { campaign: 'a campaign', ad_group: 'an ad group', ad: 'an ad' };

/** `entity_ids` are ids of the account at the selected level; the first that is not is named. */
export async function checkEntityIds(db: Queryable, req: ConversionRequest): Promise<void> {
  if (req.entityIds === null) return;
  // Table names come from the constant above; the ids are a bound list.
  const rows = await db.all(`SELECT id FROM ${LEVEL_TABLE[req.level]} WHERE ad_account_id = $account AND list_contains($ids, id)`, {
    account: req.accountId,
    ids: sqlList(req.entityIds),
  });
  const known = new Set(rows.map((r) => String(r['id'])));
  const rawIds = req.sent.entityIds;
  const i = rawIds.findIndex((id) => !known.has(id));
  if (i >= 0) {
    throw new ApiError('invalid_value', `entity_ids[${i}] '${rawIds[i]}' is not ${LEVEL_WHAT[req.level]} of this ad account (entity_ids name entities at aggregation_level ${req.level}).`, {
      param: `entity_ids[${i}]`,
    });
  }
}

/**
 * Each `event_names` entry must name an event of the account's conversion
 * event settings (archived ones included: a standard event type, or a custom
 * event name) or one it has received (its stored conversion events). Exact
 * match: no trimming, no case folding.
 */
export async function checkEventNames(db: Queryable, req: ConversionRequest): Promise<void> {
  if (req.eventNames === null) return;
  const params = { account: req.accountId, names: sqlList(req.eventNames) };
  const configured = await db.all(sql('conversion-event-names-configured'), params);
  const known = new Set(configured.map((r) => String(r['name'])));
  if (req.eventNames.every((n) => known.has(n))) return;
  const received = await db.all(sql('conversion-event-names-received'), params);
  for (const r of received) known.add(String(r['name']));
  const rawNames = req.sent.eventNames;
  const i = rawNames.findIndex((n) => !known.has(n));
  if (i >= 0) {
    throw new ApiError(
      'invalid_value',
      `Unknown event name '${rawNames[i]}': it is neither in this ad account's conversion event settings nor among the events it has received (names match exactly).`,
      { param: `event_names[${i}]` },
    );
  }
}
