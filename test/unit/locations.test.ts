import { describe, expect, it, vi } from 'vitest';
import { foldText } from '../../src/domain/locations/location-text.js';
import { expandLocation, findLocation, listLocations, searchLocations, type Location } from '../../src/domain/locations/locations.js';
import { ApiError } from '../../src/errors/api-error.js';

const all = listLocations();
const ofType = (type: Location['type']) => all.filter((l) => l.type === type);
const regionsOf = (cc: string) => ofType('region').filter((l) => l.country_code === cc);

/**
 * Region codes ICU names that are not ISO 3166-1 countries: groupings,
 * pseudo-locales, Kosovo's user-assigned code, and exceptionally reserved
 * codes for parts of other countries.
 */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ', 'XK', 'AC', 'CP', 'CQ', 'DG', 'EA', 'IC', 'TA']);

/** The runtime's own list, computed independently of the catalog data. */
function icuCountryCodes(): string[] {
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const out: string[] = [];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      // Deprecated codes (UK, SU, YU ...) resolve to a name too, under their replacement.
      const canonical = Intl.getCanonicalLocales(`und-${code}`)[0] === `und-${code}`;
      if (names.of(code) !== undefined && canonical && !NOT_COUNTRIES.has(code)) out.push(code);
    }
  }
  return out;
}

describe('location catalog', () => {
  const countries = ofType('country');

  it('holds every ISO 3166-1 country the runtime knows, once', () => {
    const codes = countries.map((c) => c.country_code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(countries.length).toBeGreaterThanOrEqual(240);
    expect(countries.length).toBe(249);
    const missing = icuCountryCodes().filter((code) => !codes.includes(code));
    expect(missing).toEqual([]);
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it('gives every entry a unique numeric id', () => {
    const ids = all.map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[1-9]\d*$/);
  });

  it('has the regions of the US (with DC), Canada, the UK and Germany', () => {
    expect(regionsOf('US')).toHaveLength(51);
    expect(regionsOf('CA')).toHaveLength(13);
    expect(regionsOf('GB')).toHaveLength(4);
    expect(regionsOf('DE')).toHaveLength(16);
    expect(regionsOf('US').map((r) => r.region_code)).toContain('DC');
    expect(regionsOf('GB').map((r) => r.name).sort()).toEqual(['England', 'Northern Ireland', 'Scotland', 'Wales']);
  });

  it('has markets in each of those countries', () => {
    for (const cc of ['US', 'CA', 'GB', 'DE']) {
      expect(ofType('market').filter((m) => m.country_code === cc).length).toBeGreaterThanOrEqual(5);
    }
  });

  it('links every entry below a country to parents that exist', () => {
    for (const c of countries) {
      expect(c).toMatchObject({ parent_id: null, parent_country: null, region_code: null, canonical_name: c.name });
    }
    for (const loc of all.filter((l) => l.type !== 'country')) {
      const parent = findLocation(loc.parent_id ?? '');
      expect(parent, loc.id).toBeDefined();
      expect(parent?.country_code).toBe(loc.country_code);
      const country = countries.find((c) => c.country_code === loc.country_code);
      expect(loc.parent_country).toBe(country?.name);
      expect(loc.canonical_name.endsWith(`, ${country?.name}`)).toBe(true);
    }
    for (const r of ofType('region')) {
      expect(findLocation(r.parent_id ?? '')?.type).toBe('country');
      expect(r.region_code).toMatch(/^[A-Z]{2,3}$/);
    }
    for (const m of ofType('market')) expect(m).toMatchObject({ region_code: null, parent_id: findLocation(m.parent_id ?? '')?.id });
    for (const d of ofType('dma')) {
      const region = findLocation(d.parent_id ?? '');
      expect(region?.type).toBe('region');
      expect(d.region_code).toBe(region?.region_code);
    }
  });

  it('keeps ids fixed: they are stored in campaign targeting', () => {
    // Pinned literally: a change here breaks every saved campaign that targets the place.
    const pinned: [string, string, string][] = [
      ['840', 'country', 'United States'],
      ['4', 'country', 'Afghanistan'],
      ['826', 'country', 'United Kingdom'],
      ['276', 'country', 'Germany'],
      ['124', 'country', 'Canada'],
      ['840006', 'region', 'California'],
      ['840011', 'region', 'District of Columbia'],
      ['124035', 'region', 'Ontario'],
      ['826001', 'region', 'England'],
      ['276009', 'region', 'Bavaria'],
      ['840501', 'market', 'New York'],
      ['826501', 'market', 'London'],
      ['276503', 'market', 'Munich'],
      ['124502', 'market', 'Montreal'],
      ['10000501', 'dma', 'New York'],
    ];
    for (const [id, type, name] of pinned) expect(findLocation(id), id).toMatchObject({ id, type, name });
    expect(findLocation('840006')).toEqual({
      id: '840006',
      name: 'California',
      canonical_name: 'California, United States',
      type: 'region',
      country_code: 'US',
      region_code: 'CA',
      parent_id: '840',
      parent_country: 'United States',
    });
  });

  it('is the same on every load', async () => {
    vi.resetModules();
    const fresh = await import('../../src/domain/locations/locations.js');
    expect(fresh.listLocations()).not.toBe(all);
    expect(JSON.stringify(fresh.listLocations())).toBe(JSON.stringify(all));
    expect(JSON.stringify(fresh.searchLocations('new', 100))).toBe(JSON.stringify(searchLocations('new', 100)));
  });

  it('does not let callers change the shared entries', () => {
    const us = findLocation('840');
    expect(Object.isFrozen(us)).toBe(true);
  });
});

describe('expandLocation', () => {
  it('returns the expanded entry of the campaign response', () => {
    expect(expandLocation('840006')).toEqual({ id: '840006', type: 'region', country_code: 'US', name: 'California', region_code: 'CA' });
    expect(expandLocation('826502')).toEqual({ id: '826502', type: 'market', country_code: 'GB', name: 'Manchester', region_code: null });
    expect(expandLocation('10000803')).toEqual({ id: '10000803', type: 'dma', country_code: 'US', name: 'Los Angeles', region_code: 'CA' });
    expect(expandLocation('276')).toEqual({ id: '276', type: 'country', country_code: 'DE', name: 'Germany', region_code: null });
  });

  it('refuses an unknown id as invalid_value on the given param', () => {
    let thrown: unknown;
    try {
      expandLocation('999999999', 'targeting.locations.include[0].id');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ status: 400, code: 'invalid_value', param: 'targeting.locations.include[0].id' });
  });
});

describe('searchLocations', () => {
  const names = (q: string, limit = 20) => searchLocations(q, limit).map((l) => `${l.type}:${l.name}`);

  it('folds case, accents and punctuation', () => {
    expect(foldText('  Baden-Württemberg ')).toBe('baden wurttemberg');
    expect(foldText('Côte d’Ivoire')).toBe('cote d ivoire');
    expect(foldText('Straße')).toBe('strasse');
    expect(names('DUSSELDORF')).toEqual(['market:Düsseldorf']);
    expect(names('düsseldorf')).toEqual(['market:Düsseldorf']);
    expect(names('cote d ivoire')[0]).toBe('country:Côte d’Ivoire');
    expect(names('québec')[0]).toBe('region:Quebec');
    expect(names('thüringen')).toEqual(['region:Thuringia']);
  });

  it('ranks exact matches, then countries, then smaller areas', () => {
    expect(names('georgia').slice(0, 2)).toEqual(['country:Georgia', 'region:Georgia']);
    expect(names('new york').slice(0, 3)).toEqual(['region:New York', 'market:New York', 'dma:New York']);
    // "Canada" (country, prefix) before "California" (region, prefix).
    const ca = names('ca');
    expect(ca.indexOf('country:Canada')).toBeLessThan(ca.indexOf('region:California'));
    expect(ca.slice(0, 5).every((n) => n.startsWith('country:'))).toBe(true);
    // An exact region beats a country that merely starts with the query.
    expect(names('washington')[0]).toBe('region:Washington');
  });

  it('finds by any word and by the parent country', () => {
    expect(names('york')).toEqual(expect.arrayContaining(['region:New York', 'market:New York']));
    const germany = searchLocations('germany', 100);
    expect(germany[0]?.id).toBe('276');
    expect(germany.filter((l) => l.type === 'region')).toHaveLength(16);
  });

  it('finds by alias without showing it', () => {
    expect(searchLocations('bayern', 5)[0]).toMatchObject({ id: '276009', name: 'Bavaria' });
    expect(searchLocations('usa', 5)[0]).toMatchObject({ id: '840', name: 'United States' });
  });

  it('honours limit and is deterministic', () => {
    expect(searchLocations('a', 7)).toHaveLength(7);
    expect(searchLocations('united states', 100).length).toBeGreaterThan(51);
    expect(searchLocations('s', 100)).toEqual(searchLocations('S', 100));
    expect(searchLocations('', 10)).toEqual([]);
    expect(searchLocations('!!!', 10)).toEqual([]);
    expect(searchLocations('zzqx', 10)).toEqual([]);
  });
});
