import { ApiError } from '../../errors/api-error.js';
import { sql } from '../../store/sql-loader.js';
import { sqlList, type Queryable } from '../../store/store.js';

/**
 * Campaign targeting rules for custom audiences (spec: Notes on create, Update
 * rule 7): included audiences must be ready; excluded ones ready or too small;
 * with both, the population left must still reach the minimum. The versions
 * read here are compared again inside the save transaction (409 on a race).
 */
export type AudienceVersions = Map<string, number>;

const INCLUDE_PARAM = 'targeting.custom_audiences.ids';
const EXCLUDE_PARAM = 'targeting.excluded_custom_audiences.ids';

export async function checkAudienceTargeting(
  db: Queryable,
  accountId: string,
  include: readonly string[],
  exclude: readonly string[],
  minSize: number,
): Promise<AudienceVersions> {
  const versions: AudienceVersions = new Map();
  const all = [...include, ...exclude];
  if (all.length === 0) return versions;
  const rows = await db.all(sql('audiences-by-ids'), { account: accountId, ids: sqlList(all) });
  const byId = new Map(rows.map((r) => [String(r['id']), r]));
  const check = (ids: readonly string[], param: string, allowed: readonly string[], use: string) => {
    const seen = new Set<string>();
    ids.forEach((id, i) => {
      const p = `${param}[${i}]`;
      if (seen.has(id)) throw new ApiError('invalid_value', `Audience '${id}' is listed twice.`, { param: p });
      seen.add(id);
      const row = byId.get(id);
      if (!row) throw ApiError.notFound('custom audience', id, p);
      const status = String(row['status']);
      if (!allowed.includes(status)) {
        throw new ApiError('audience_not_eligible', `Audience '${id}' is ${status} and not eligible for ${use}; see GET /custom_audiences?intended_use=${use}.`, {
          param: p,
        });
      }
      versions.set(id, Number(row['membership_version']));
    });
  };
  check(include, INCLUDE_PARAM, ['ready'], 'inclusion');
  check(exclude, EXCLUDE_PARAM, ['ready', 'too_small'], 'exclusion');
  const both = include.findIndex((id) => exclude.includes(id));
  if (both >= 0) throw new ApiError('invalid_value', `Audience '${include[both]}' is both included and excluded.`, { param: `${INCLUDE_PARAM}[${both}]` });
  if (include.length > 0 && exclude.length > 0) {
    const row = await db.get(sql('audience-remaining-population'), { included: sqlList(include), excluded: sqlList(exclude) });
    const remaining = Number(row?.['n'] ?? 0);
    if (remaining < minSize) {
      throw new ApiError('audience_not_eligible', `After exclusions ${remaining} people remain; targeting needs at least ${minSize}.`, { param: EXCLUDE_PARAM });
    }
  }
  return versions;
}

/** Inside the save transaction: the audiences checked must not have changed since. */
export async function assertAudiencesUnchanged(tx: Queryable, accountId: string, versions: AudienceVersions): Promise<void> {
  if (versions.size === 0) return;
  const rows = await tx.all(sql('audiences-by-ids'), { account: accountId, ids: sqlList([...versions.keys()]) });
  const now = new Map(rows.map((r) => [String(r['id']), Number(r['membership_version'])]));
  for (const [id, version] of versions) {
    if (now.get(id) !== version) {
      throw new ApiError('custom_audience_mutation_conflict', `The membership of audience '${id}' changed while the campaign was being saved; nothing was applied. Retry.`);
    }
  }
}
