import { IANAZone } from 'luxon';

let byLowerCase: Map<string, string> | undefined;

/**
 * The IANA name of a zone as the tz database spells it (`america/new_york` ->
 * `America/New_York`), or null when it is not a zone. Links are kept as given
 * (`Asia/Kolkata` stays `Asia/Kolkata`, not ICU's legacy `Asia/Calcutta`).
 */
export function canonicalTimezone(name: string): string | null {
  if (!IANAZone.isValidZone(name)) return null;
  byLowerCase ??= new Map([...Intl.supportedValuesOf('timeZone'), 'UTC'].map((z) => [z.toLowerCase(), z]));
  const known = byLowerCase.get(name.toLowerCase());
  return known !== undefined && known.toLowerCase() === name.toLowerCase() ? known : name;
}
