/**
 * Currencies come from the runtime's ICU data (ISO 4217), so the list and the
 * number of minor digits (USD 2, JPY 0, KWD 3) are not hand-maintained.
 */
const supported = new Set(Intl.supportedValuesOf('currency'));

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && supported.has(code);
}

/** Micros in the currency's smallest unit: USD 10000, JPY 1000000, KWD 1000. */
export function smallestUnitMicros(code: string): number {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  return 10 ** (6 - Math.min(6, digits));
}
