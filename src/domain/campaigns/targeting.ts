import { ApiError } from '../../errors/api-error.js';
import { expandLocation, findLocation } from '../locations/locations.js';
import type { StoredTargeting, TargetingInput } from './campaign-schemas.js';

/**
 * Campaign targeting: merging an update into what is stored (spec, Update
 * rules 3 and 6: a part omitted keeps, null clears, a value replaces; the
 * whole targeting null clears all), checking location ids against the bundled
 * catalog, and expanding locations for responses.
 */
const PARTS = ['locations', 'platforms', 'custom_audiences', 'excluded_custom_audiences'] as const;

export function mergeTargeting(stored: StoredTargeting, input: TargetingInput | null | undefined): StoredTargeting {
  if (input === undefined) return stored;
  if (input === null) return {};
  const out: StoredTargeting = { ...stored };
  for (const part of PARTS) {
    const value = input[part];
    if (value === undefined) continue;
    if (value === null) delete out[part];
    else if (part === 'locations') out.locations = { include: (value as { include: { id: string }[] }).include.map((l) => ({ id: l.id })) };
    else (out as Record<string, unknown>)[part] = value;
  }
  return out;
}

export function checkLocations(t: StoredTargeting): void {
  const seen = new Set<string>();
  t.locations?.include.forEach((loc, i) => {
    const param = `targeting.locations.include[${i}].id`;
    if (findLocation(loc.id) === undefined) {
      throw new ApiError('invalid_value', `Unknown location id '${loc.id}'; find ids with GET /geo_lookup/search.`, { param });
    }
    if (seen.has(loc.id)) throw new ApiError('invalid_value', `Location '${loc.id}' is listed twice.`, { param });
    seen.add(loc.id);
  });
  const platforms = t.platforms?.included ?? [];
  if (new Set(platforms).size !== platforms.length) {
    throw new ApiError('invalid_value', 'A platform is listed twice.', { param: 'targeting.platforms.included' });
  }
}

export interface WireTargeting {
  locations?: { include: ReturnType<typeof expandLocation>[] };
  platforms?: { included: string[] };
  custom_audiences?: { ids: string[] };
  excluded_custom_audiences?: { ids: string[] };
}

export function expandTargeting(t: StoredTargeting): WireTargeting {
  const out: WireTargeting = {};
  if (t.locations) out.locations = { include: t.locations.include.map((l) => expandLocation(l.id)) };
  if (t.platforms) out.platforms = { included: [...t.platforms.included] };
  if (t.custom_audiences) out.custom_audiences = { ids: [...t.custom_audiences.ids] };
  if (t.excluded_custom_audiences) out.excluded_custom_audiences = { ids: [...t.excluded_custom_audiences.ids] };
  return out;
}
