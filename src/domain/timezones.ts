import { IANAZone } from 'luxon';

/** The canonical IANA name of a zone (`utc` -> `UTC`), or null when it is not one. */
export function canonicalTimezone(name: string): string | null {
  if (!IANAZone.isValidZone(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
