import { COUNTRY_ROWS } from './country-data.js';
import { foldText } from './location-text.js';
import type { Location, LocationType } from './location-types.js';
import { DMA_ID_BASE, MARKET_ROWS, US_DMA_ROWS } from './market-data.js';
import { REGION_ROWS } from './region-data.js';

/** A location plus the folded strings search compares against. */
export interface CatalogEntry {
  readonly location: Location;
  /** Folded name and aliases. */
  readonly terms: readonly string[];
  readonly canonical: string;
  readonly typeRank: number;
  readonly sortName: string;
  readonly sortId: number;
}

/** Countries first, then ever smaller areas (the search tie-break). */
const TYPE_RANK: Readonly<Record<LocationType, number>> = { country: 0, region: 1, market: 2, dma: 3 };

function entry(location: Location, aliases: readonly string[] = []): CatalogEntry {
  return {
    location: Object.freeze(location),
    terms: [location.name, ...aliases].map(foldText),
    canonical: foldText(location.canonical_name),
    typeRank: TYPE_RANK[location.type],
    sortName: foldText(location.name),
    sortId: Number(location.id),
  };
}

function build(): CatalogEntry[] {
  const out: CatalogEntry[] = [];
  const countries = new Map<string, Location>();
  for (const [code, isoNumeric, name, aliases] of COUNTRY_ROWS) {
    const loc: Location = {
      id: String(isoNumeric),
      name,
      canonical_name: name,
      type: 'country',
      country_code: code,
      region_code: null,
      parent_id: null,
      parent_country: null,
    };
    countries.set(code, loc);
    out.push(entry(loc, aliases));
  }
  const country = (code: string): Location => {
    const found = countries.get(code);
    if (found === undefined) throw new Error(`location data names unknown country ${code}`);
    return found;
  };
  const usRegions = new Map<string, Location>();
  for (const [code, rows] of Object.entries(REGION_ROWS)) {
    const parent = country(code);
    for (const [id, regionCode, name, aliases] of rows) {
      const loc: Location = {
        id: String(id),
        name,
        canonical_name: `${name}, ${parent.name}`,
        type: 'region',
        country_code: code,
        region_code: regionCode,
        parent_id: parent.id,
        parent_country: parent.name,
      };
      if (code === 'US') usRegions.set(regionCode, loc);
      out.push(entry(loc, aliases));
    }
  }
  for (const [code, rows] of Object.entries(MARKET_ROWS)) {
    const parent = country(code);
    for (const [id, name, aliases] of rows) {
      const loc: Location = {
        id: String(id),
        name,
        // "metro area" keeps New York the market apart from New York the state wherever only canonical names are shown.
        canonical_name: `${name} metro area, ${parent.name}`,
        type: 'market',
        country_code: code,
        region_code: null,
        parent_id: parent.id,
        parent_country: parent.name,
      };
      out.push(entry(loc, aliases));
    }
  }
  const us = country('US');
  for (const [dmaCode, name, regionCode] of US_DMA_ROWS) {
    const region = usRegions.get(regionCode);
    if (region === undefined) throw new Error(`DMA ${dmaCode} names unknown US region ${regionCode}`);
    const loc: Location = {
      id: String(DMA_ID_BASE + dmaCode),
      name,
      canonical_name: `${name} DMA, ${region.name}, ${us.name}`,
      type: 'dma',
      country_code: 'US',
      region_code: regionCode,
      parent_id: region.id,
      parent_country: us.name,
    };
    out.push(entry(loc));
  }
  return out;
}

/** The whole catalog, built once per process from the static data above. */
export const CATALOG: readonly CatalogEntry[] = build();

export const LOCATIONS_BY_ID: ReadonlyMap<string, Location> = (() => {
  const byId = new Map<string, Location>();
  for (const { location } of CATALOG) {
    // Two rows sharing an id would make saved targeting ambiguous; refuse to start.
    if (byId.has(location.id)) throw new Error(`duplicate location id ${location.id}`);
    byId.set(location.id, location);
  }
  return byId;
})();
