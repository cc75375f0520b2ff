import type { Clock } from '../clock.js';
import { requireAccount } from '../domain/accounts/accounts.js';
import type { Store } from '../store/store.js';
import { runConversionInsights } from './execute.js';
import type { ConversionInsights } from './response.js';
import { normalizeConversionInsights } from './request.js';
import { checkEntityIds, checkEventNames } from './validate.js';

/**
 * POST /conversions/insights (spec: Conversion insights): normalize the body,
 * check it against the account's data, run it. Every check comes before any
 * report query.
 */
export async function getConversionInsights(deps: { store: Store; clock: Clock }, accountId: string, rawBody: unknown): Promise<ConversionInsights> {
  const account = await requireAccount(deps, accountId);
  const req = normalizeConversionInsights({ id: account.id, timezone: account.timezone }, rawBody, deps.clock.nowMs());
  await checkEntityIds(deps.store, req);
  await checkEventNames(deps.store, req);
  return runConversionInsights(deps.store, req, account.currency_code);
}
