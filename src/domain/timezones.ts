import { IANAZone } from 'luxon';

let byLowerCase: Map<string, string> | undefined;
/**
 * Current tz database names that ICU lists under an older one
 * (`Intl.supportedValuesOf` has Asia/Calcutta, not Asia/Kolkata): known here
 * so that any spelling of them comes out as the tz database writes it.
 */
const CURRENT_NAMES = [
  'Africa/Asmara',
  'America/Argentina/Buenos_Aires',
  'America/Argentina/Catamarca',
  'America/Argentina/Cordoba',
  'America/Argentina/Jujuy',
  'America/Argentina/Mendoza',
  'America/Atikokan',
  'America/Indiana/Indianapolis',
  'America/Kentucky/Louisville',
  'America/Nuuk',
  'Asia/Ho_Chi_Minh',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Asia/Yangon',
  'Atlantic/Faroe',
  'Europe/Kyiv',
  'Pacific/Chuuk',
  'Pacific/Kanton',
  'Pacific/Pohnpei',
];
/** Names already looked up: checking a zone makes an Intl formatter (about 0.3 ms, a tenth of an insights request's own JS). Capped, since names come from requests. */
const looked = new Map<string, string | null>();
const MAX_LOOKED = 1000;

/**
 * The IANA name of a zone as the tz database spells it (`america/new_york` ->
 * `America/New_York`), or null when it is not a zone. Links are kept as given
 * (`Asia/Kolkata` stays `Asia/Kolkata`, not ICU's legacy `Asia/Calcutta`).
 */
export function canonicalTimezone(name: string): string | null {
  const kept = looked.get(name);
  if (kept !== undefined) return kept;
  const found = lookUp(name);
  if (looked.size >= MAX_LOOKED) looked.clear();
  looked.set(name, found);
  return found;
}

function lookUp(name: string): string | null {
  if (!IANAZone.isValidZone(name)) return null;
  byLowerCase ??= new Map([...Intl.supportedValuesOf('timeZone'), 'UTC', ...CURRENT_NAMES.filter((z) => IANAZone.isValidZone(z))].map((z) => [z.toLowerCase(), z]));
  const known = byLowerCase.get(name.toLowerCase());
  return known !== undefined && known.toLowerCase() === name.toLowerCase() ? known : name;
}
