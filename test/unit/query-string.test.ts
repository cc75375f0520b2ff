import { describe, expect, it } from 'vitest';
import { parseQueryString } from '../../src/http/query-string.js';

describe('parseQueryString', () => {
  it.each([
    ['fields[]=impressions&fields[]=clicks'],
    ['fields=impressions&fields=clicks'],
    ['fields%5B%5D=impressions&fields%5B%5D=clicks'],
    ['fields[0]=impressions&fields[1]=clicks'],
  ])('reads %s as an array', (qs) => {
    expect(parseQueryString(qs)).toEqual({ fields: ['impressions', 'clicks'] });
  });

  it('keeps one bracketed value as an array and one plain value as a string', () => {
    expect(parseQueryString('fields[]=a&limit=5')).toEqual({ fields: ['a'], limit: '5' });
  });

  it('decodes JSON-encoded values', () => {
    const tr = JSON.stringify({ type: 'date_range', since: '2026-01-01', until: '2026-01-31' });
    expect(parseQueryString(`time_ranges=${encodeURIComponent(tr)}`)).toEqual({ time_ranges: tr });
  });

  it('cannot be used to set an object prototype', () => {
    const q = parseQueryString('__proto__=x&constructor=y');
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
    expect(Object.keys(q).sort()).toEqual(['__proto__', 'constructor']);
  });
});
