import type { Clock } from '../clock.js';
import { requireAccount } from '../domain/accounts/accounts.js';
import { ApiError } from '../errors/api-error.js';
import type { Store } from '../store/store.js';
import type { Level } from './catalog.js';
import { runInsights, type InsightsPage } from './execute.js';
import { normalizeInsights } from './request.js';

/** The four GET insights endpoints: scope check, normalize, run (spec: Insights (GET)). */
const SCOPE_TABLE: Record<Exclude<Level, 'ad_account'>, { table: string; what: string }> = {
  campaign: { table: 'campaigns', what: 'campaign' },
  ad_group: { table: 'ad_groups', what: 'ad group' },
  ad: { table: 'ads', what: 'ad' },
};

export async function getInsights(
  deps: { store: Store; clock: Clock },
  accountId: string,
  scope: { level: Level; id: string | null },
  rawQuery: unknown,
  /** Aborts the page read when the client goes away. */
  signal?: AbortSignal,
): Promise<InsightsPage> {
  // Both lookups are kept until the next write (Store.memo): a report's pages and repeated reports skip them.
  const account = await deps.store.memo(`insights:account:${accountId}`, () => requireAccount(deps, accountId));
  if (scope.level !== 'ad_account') {
    const { table, what } = SCOPE_TABLE[scope.level];
    const id = scope.id ?? '';
    // Identifiers from the table above only; the id is a bound value.
    const found = await deps.store.memo(`insights:scope:${table}:${accountId}:${id}`, async () =>
      (await deps.store.get(`SELECT 1 AS ok FROM ${table} WHERE id = $id AND ad_account_id = $account`, { id, account: accountId })) !== undefined,
    );
    if (!found) throw ApiError.notFound(what, id);
  }
  const req = normalizeInsights(
    { accountId, level: scope.level, id: scope.id ?? accountId },
    { timezone: account.timezone, productSegments: account.product_segments_enabled, zeroImpressionProducts: account.zero_impression_products_enabled },
    rawQuery,
    deps.clock.nowMs(),
  );
  return runInsights(deps, req, account.timezone, signal);
}
