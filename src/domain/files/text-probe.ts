import { createReadStream } from 'node:fs';

/**
 * Custom audience lists are "UTF-8 CSV or TXT" (spec "Files"). A list job
 * parses them later; here we only make sure the bytes are text it can read.
 */
export type TextProbe =
  | { ok: true; mimeType: 'text/csv' | 'text/plain' }
  | { ok: false; problem: 'empty' | 'nul_bytes' | 'not_utf8' };

/** How much of the start decides CSV versus plain text. */
const FIRST_LINE_BYTES = 4096;

/** A list with a separator in its first line is CSV; one identifier per line is plain text. */
function mimeTypeFor(filename: string | null, firstLine: string): 'text/csv' | 'text/plain' {
  const ext = /\.([a-z0-9]+)$/i.exec(filename ?? '')?.[1]?.toLowerCase();
  if (ext === 'csv') return 'text/csv';
  if (ext === 'txt') return 'text/plain';
  return /[,;\t]/.test(firstLine) ? 'text/csv' : 'text/plain';
}

/** Reads a staged file once: valid UTF-8 throughout, no NUL bytes, something besides white space. */
export async function probeTextFile(path: string, filename: string | null): Promise<TextProbe> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = '';
  let hasText = false;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      // NUL never occurs in a text list; it marks binary files and UTF-16.
      if (chunk.includes(0)) return { ok: false, problem: 'nul_bytes' };
      const text = decoder.decode(chunk, { stream: true });
      if (!hasText && /\S/.test(text.replace(/^\uFEFF/, ''))) hasText = true;
      if (start.length < FIRST_LINE_BYTES) start += text.slice(0, FIRST_LINE_BYTES - start.length);
    }
    decoder.decode();
  } catch (err) {
    if (err instanceof TypeError) return { ok: false, problem: 'not_utf8' };
    throw err;
  }
  if (!hasText) return { ok: false, problem: 'empty' };
  const firstLine = start.replace(/^\uFEFF/, '').replace(/^\s+/, '').split(/\r?\n/)[0] ?? '';
  return { ok: true, mimeType: mimeTypeFor(filename, firstLine) };
}
