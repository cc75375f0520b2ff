import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeTextFile } from '../../src/domain/files/text-probe.js';

const dir = mkdtempSync(join(tmpdir(), 'adsvc-text-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fileWith = (bytes: Buffer | string): string => {
  const path = join(dir, `f${n++}`);
  writeFileSync(path, bytes);
  return path;
};

describe('text probe for audience lists', () => {
  it.each([
    ['email\nada@example.com\n', 'list.csv', 'text/csv'],
    ['ada@example.com\nbob@example.com\n', 'list.txt', 'text/plain'],
    ['email,phone\nada@example.com,+4912345\n', null, 'text/csv'],
    ['ada@example.com\n', null, 'text/plain'],
    ['\uFEFFemail;name\nü@example.com;Jürgen\n', 'upload', 'text/csv'],
  ])('%j (%s) is %s', async (text, filename, mimeType) => {
    expect(await probeTextFile(fileWith(text), filename)).toEqual({ ok: true, mimeType });
  });

  it.each([
    ['white space only', ' \n\t\r\n', 'empty'],
    ['NUL bytes', Buffer.from('a\u0000b'), 'nul_bytes'],
    ['UTF-16', Buffer.from('\uFEFFemail\n', 'utf16le'), 'nul_bytes'],
    ['Latin-1', Buffer.from([0x4a, 0xfc, 0x72, 0x67, 0x65, 0x6e, 0x0a]), 'not_utf8'],
    ['a truncated sequence', Buffer.from([0x61, 0xe2, 0x82]), 'not_utf8'],
  ])('refuses %s', async (_name, bytes, problem) => {
    expect(await probeTextFile(fileWith(bytes), 'x.csv')).toEqual({ ok: false, problem });
  });
});
