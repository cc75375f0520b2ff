import { createHash } from 'node:crypto';

/**
 * Customer-list parsing: one identifier per line (TXT) or in the first column
 * (CSV, an optional header row skipped), normalized per type and kept only as
 * SHA-256, so lists are never stored in clear text.
 */
export const IDENTIFIER_TYPES = ['email', 'phone', 'mobile_ad_id', 'external_id'] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];

const NORMALIZE: Record<IdentifierType, (raw: string) => string | null> = {
  email: (s) => {
    const e = s.trim().toLowerCase();
    return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e) ? e : null;
  },
  phone: (s) => {
    const digits = s.replace(/[\s().-]/g, '');
    return /^\+?\d{7,15}$/.test(digits) ? digits.replace(/^\+/, '') : null;
  },
  mobile_ad_id: (s) => {
    const id = s.trim().toLowerCase();
    return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) ? id : null;
  },
  external_id: (s) => {
    const id = s.trim();
    return id.length >= 1 && id.length <= 256 ? id : null;
  },
};

/** The first CSV field of a line, honouring double quotes. */
function firstField(line: string): string {
  if (!line.startsWith('"')) return line.split(',')[0] ?? '';
  let out = '';
  for (let i = 1; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      if (line[i + 1] === '"') {
        out += '"';
        i++;
      } else break;
    } else out += c;
  }
  return out;
}

export interface ParsedList {
  hashes: string[];
  lines: number;
  invalid: number;
}

export function parseCustomerList(text: string, type: IdentifierType, csv: boolean): ParsedList {
  const normalize = NORMALIZE[type];
  const seen = new Set<string>();
  let lines = 0;
  let invalid = 0;
  const rows = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  rows.forEach((row, index) => {
    if (row.trim() === '') return;
    const value = csv ? firstField(row) : row;
    const normalized = normalize(value);
    // A first row that is not an identifier is a header, not a bad row.
    if (normalized === null && index === 0) return;
    lines++;
    if (normalized === null) {
      invalid++;
      return;
    }
    seen.add(createHash('sha256').update(normalized).digest('hex'));
  });
  return { hashes: [...seen], lines, invalid };
}
