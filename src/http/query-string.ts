/**
 * Query strings with array parameters in every form clients send
 * (COMPAT.md, Transport): `fields[]=a&fields[]=b`, `fields=a&fields=b`,
 * `fields%5B%5D=a`, and indexed `fields[0]=a`. Bracketed or repeated names
 * become arrays; a single plain name stays a string (schemas that take an
 * array accept one string as a one-element array).
 */
export type ParsedQuery = Record<string, string | string[]>;

const BRACKETS = /\[\d*\]$/;

export function parseQueryString(text: string): ParsedQuery {
  const values = new Map<string, string[]>();
  const bracketed = new Set<string>();
  for (const [rawKey, value] of new URLSearchParams(text)) {
    let key = rawKey;
    if (BRACKETS.test(key)) {
      key = key.replace(BRACKETS, '');
      bracketed.add(key);
    }
    const list = values.get(key);
    if (list) list.push(value);
    else values.set(key, [value]);
  }
  const out: ParsedQuery = {};
  for (const [key, list] of values) {
    const value = list.length === 1 && !bracketed.has(key) ? (list[0] as string) : list;
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
