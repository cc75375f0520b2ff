import { ApiError } from '../../errors/api-error.js';
import { CATALOG, LOCATIONS_BY_ID, type CatalogEntry } from './location-catalog.js';
import { foldText } from './location-text.js';
import type { ExpandedLocation, Location } from './location-types.js';

export type { ExpandedLocation, Location, LocationType } from './location-types.js';

export function findLocation(id: string): Location | undefined {
  return LOCATIONS_BY_ID.get(id);
}

/** Every location, countries first, in catalog order. */
export function listLocations(): readonly Location[] {
  return CATALOG.map((e) => e.location);
}

/** A location as campaign targeting shows it (spec: Expanded location entry). */
export function toExpandedLocation(location: Location): ExpandedLocation {
  return {
    id: location.id,
    type: location.type,
    country_code: location.country_code,
    name: location.name,
    region_code: location.region_code,
  };
}

/**
 * Expands a location id from a request; an unknown id is the caller's
 * mistake, reported as `invalid_value` on `param` (e.g.
 * `targeting.locations.include[0].id`).
 */
export function expandLocation(id: string, param: string | null = null): ExpandedLocation {
  const location = findLocation(id);
  if (location === undefined) throw new ApiError('invalid_value', `Unknown location id: '${id}'.`, { param });
  return toExpandedLocation(location);
}

/**
 * How well an entry matches a folded query, best 0; undefined when it does
 * not. 0: the whole name, an alias or the canonical name. 1: the name or an
 * alias starts with the query. 2: a later word of one does. 3: a word of the
 * canonical name does, which finds a country's regions by the country's name.
 */
function matchTier(entry: CatalogEntry, needle: string): number | undefined {
  if (entry.canonical === needle || entry.terms.includes(needle)) return 0;
  if (entry.terms.some((t) => t.startsWith(needle))) return 1;
  const word = ` ${needle}`;
  if (entry.terms.some((t) => ` ${t}`.includes(word))) return 2;
  if (` ${entry.canonical}`.includes(word)) return 3;
  return undefined;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Case- and accent-insensitive search on names, aliases and canonical names.
 * Order: match tier, then countries before regions before markets before
 * DMAs, then folded name, then id; compared by code units rather than a
 * locale so that the order is the same on every machine.
 */
export function searchLocations(q: string, limit: number): Location[] {
  const needle = foldText(q);
  if (needle === '' || limit <= 0) return [];
  const hits: { entry: CatalogEntry; tier: number }[] = [];
  for (const entry of CATALOG) {
    const tier = matchTier(entry, needle);
    if (tier !== undefined) hits.push({ entry, tier });
  }
  hits.sort(
    (x, y) =>
      x.tier - y.tier ||
      x.entry.typeRank - y.entry.typeRank ||
      byCodeUnits(x.entry.sortName, y.entry.sortName) ||
      x.entry.sortId - y.entry.sortId,
  );
  return hits.slice(0, limit).map((h) => h.entry.location);
}
