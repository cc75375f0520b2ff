import { describe, expect, it } from 'vitest';
import { canonicalTimezone } from '../../src/domain/timezones.js';

describe('canonicalTimezone', () => {
  it('spells zones as the tz database does, keeps links, refuses non-zones, and answers the same when asked again', () => {
    for (let round = 0; round < 2; round++) {
      expect(canonicalTimezone('america/new_york')).toBe('America/New_York');
      expect(canonicalTimezone('Asia/Kolkata')).toBe('Asia/Kolkata');
      // Names ICU files under an older one (Asia/Katmandu, Asia/Calcutta, Europe/Kiev) are spelled as the tz database does too.
      expect(canonicalTimezone('asia/kathmandu')).toBe('Asia/Kathmandu');
      expect(canonicalTimezone('ASIA/KOLKATA')).toBe('Asia/Kolkata');
      expect(canonicalTimezone('europe/kyiv')).toBe('Europe/Kyiv');
      expect(canonicalTimezone('asia/calcutta')).toBe('Asia/Calcutta');
      expect(canonicalTimezone('UTC')).toBe('UTC');
      expect(canonicalTimezone('Mars/Olympus_Mons')).toBeNull();
      expect(canonicalTimezone('')).toBeNull();
    }
  });

  it('stays right past the cap on remembered names', () => {
    for (let i = 0; i < 2500; i++) expect(canonicalTimezone(`Nowhere/Place_${i}`)).toBeNull();
    expect(canonicalTimezone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimezone('Nowhere/Place_1')).toBeNull();
  });
});
