export type LocationType = 'country' | 'region' | 'market' | 'dma';

/**
 * One catalog entry as `GET /geo_lookup/search` returns it (COMPAT.md:
 * Locations). `region_code` is the ISO 3166-2 subdivision part (`CA`, `ENG`)
 * for regions, the principal state's code for DMAs, null for countries and
 * markets. `parent_id` is null for countries, the country for regions and
 * markets, the principal state for DMAs. `parent_country` is the country's
 * English name, null for countries themselves.
 */
export interface Location {
  readonly id: string;
  readonly name: string;
  readonly canonical_name: string;
  readonly type: LocationType;
  readonly country_code: string;
  readonly region_code: string | null;
  readonly parent_id: string | null;
  readonly parent_country: string | null;
}

/** A location inside campaign targeting responses (spec: Expanded location entry). */
export interface ExpandedLocation {
  id: string;
  type: LocationType;
  country_code: string;
  name: string;
  region_code: string | null;
}
