import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearer, makeAccount } from '../support/context.js';
import { startTestApp, type TestApp } from '../support/app.js';

const Result = z
  .object({
    id: z.string().regex(/^\d+$/),
    name: z.string().min(1),
    canonical_name: z.string().min(1),
    type: z.enum(['country', 'region', 'market', 'dma']),
    country_code: z.string().regex(/^[A-Z]{2}$/),
    region_code: z.string().nullable(),
    parent_id: z.string().nullable(),
    parent_country: z.string().nullable(),
  })
  .strict();
const Search = z.object({ query: z.string(), count: z.number().int(), results: z.array(Result) }).strict();
const ErrorBody = z.object({ error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }).strict() }).strict();

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await makeAccount(t)).key;
});
afterAll(() => t.close());

const search = (qs: string, headers: Record<string, string> = bearer(key)) => t.app.inject({ method: 'GET', url: `/v1/geo_lookup/search${qs}`, headers });

async function ok(qs: string): Promise<z.output<typeof Search>> {
  const res = await search(qs);
  expect(res.statusCode, res.body).toBe(200);
  const body = Search.parse(res.json());
  expect(body.count).toBe(body.results.length);
  return body;
}

describe('GET /v1/geo_lookup/search', () => {
  it('returns matching locations with the documented fields', async () => {
    const body = await ok('?q=california');
    expect(body.query).toBe('california');
    expect(body.results[0]).toEqual({
      id: '840006',
      name: 'California',
      canonical_name: 'California, United States',
      type: 'region',
      country_code: 'US',
      region_code: 'CA',
      parent_id: '840',
      parent_country: 'United States',
    });
    const us = await ok('?q=United%20States&limit=1');
    expect(us.results).toEqual([
      { id: '840', name: 'United States', canonical_name: 'United States', type: 'country', country_code: 'US', region_code: null, parent_id: null, parent_country: null },
    ]);
  });

  it('returns every type: country, region, market, dma', async () => {
    const body = await ok('?q=new%20york');
    expect(body.results.slice(0, 3).map((r) => [r.type, r.id, r.region_code])).toEqual([
      ['region', '840036', 'NY'],
      ['market', '840501', null],
      ['dma', '10000501', 'NY'],
    ]);
    const london = await ok('?q=london');
    expect(london.results[0]).toMatchObject({ type: 'market', country_code: 'GB', parent_id: '826', parent_country: 'United Kingdom', region_code: null });
  });

  it('ranks exact matches and countries first', async () => {
    const georgia = await ok('?q=Georgia');
    expect(georgia.results.slice(0, 2).map((r) => `${r.type}:${r.country_code}`)).toEqual(['country:GE', 'region:US']);
    const germany = await ok('?q=germany&limit=100');
    expect(germany.results[0]?.id).toBe('276');
    expect(germany.results.filter((r) => r.type === 'region')).toHaveLength(16);
  });

  it('ignores case and accents and trims the query', async () => {
    const plain = await ok('?q=dusseldorf');
    const accented = await ok(`?q=${encodeURIComponent('  DÜSSELDORF ')}`);
    expect(accented.query).toBe('DÜSSELDORF');
    expect(accented.results).toEqual(plain.results);
    expect(plain.results.map((r) => r.name)).toEqual(['Düsseldorf']);
    const quebec = await ok(`?q=${encodeURIComponent('québec')}`);
    expect(quebec.results[0]).toMatchObject({ id: '124024', name: 'Quebec', region_code: 'QC' });
  });

  it('applies limit (default 20, up to 100) and answers the same each time', async () => {
    expect((await ok('?q=s')).count).toBe(20);
    expect((await ok('?q=s&limit=3')).count).toBe(3);
    const many = await ok('?q=s&limit=100');
    expect(many.count).toBe(100);
    expect((await ok('?q=s&limit=100')).results).toEqual(many.results);
    expect((await ok('?q=s&limit=5')).results).toEqual(many.results.slice(0, 5));
  });

  it('returns an empty list when nothing matches', async () => {
    expect(await ok('?q=qqzzxx')).toEqual({ query: 'qqzzxx', count: 0, results: [] });
  });

  it.each([
    ['', 'missing_required_parameter', 'q'],
    ['?limit=5', 'missing_required_parameter', 'q'],
    ['?q=', 'string_below_min_length', 'q'],
    ['?q=%20%20', 'string_below_min_length', 'q'],
    [`?q=${'x'.repeat(201)}`, 'string_above_max_length', 'q'],
    ['?q=a&limit=101', 'integer_above_max_value', 'limit'],
    ['?q=a&limit=0', 'integer_below_min_value', 'limit'],
    ['?q=a&limit=ten', 'invalid_type', 'limit'],
    ['?q=a&q=b', 'invalid_type', 'q'],
    ['?q=a&country=US', 'unknown_parameter', 'country'],
  ])('refuses %s with 400 %s', async (qs, code, param) => {
    const res = await search(qs);
    expect(res.statusCode).toBe(400);
    expect(ErrorBody.parse(res.json()).error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('accepts a 200-character query', async () => {
    expect((await ok(`?q=${'x'.repeat(200)}`)).count).toBe(0);
  });

  it('needs an API key', async () => {
    const res = await search('?q=berlin', {});
    expect(res.statusCode).toBe(401);
    expect(ErrorBody.parse(res.json()).error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
    const bad = await search('?q=berlin', bearer('sk_not_a_real_key'));
    expect(bad.statusCode).toBe(401);
    expect(ErrorBody.parse(bad.json()).error.type).toBe('authentication_error');
  });
});
