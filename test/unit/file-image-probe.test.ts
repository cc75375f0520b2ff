import { describe, expect, it } from 'vitest';
import { probeImage } from '../../src/domain/files/image-probe.js';
import { gif, ico, jpeg, png, svg, webpHeader } from '../fixtures/images.js';

describe('image probe (bytes decide, never names)', () => {
  it.each([
    ['PNG', png(256, 256), 'png', 'image/png', 256, 256],
    ['PNG 64x32', png(64, 32), 'png', 'image/png', 64, 32],
    ['JPEG', jpeg(256, 200), 'jpeg', 'image/jpeg', 256, 200],
    ['GIF', gif(64, 48), 'gif', 'image/gif', 64, 48],
    ['WebP', webpHeader(300, 200), 'webp', 'image/webp', 300, 200],
    ['ICO 256', ico(256), 'ico', 'image/x-icon', 256, 256],
    ['ICO 48', ico(48), 'ico', 'image/x-icon', 48, 48],
  ])('recognises %s', (_name, bytes, type, mimeType, width, height) => {
    expect(probeImage(bytes)).toEqual({ ok: true, image: { type, mimeType, width, height } });
  });

  it('names types it recognises but does not accept', () => {
    expect(probeImage(svg(10, 10))).toEqual({ ok: false, detected: 'svg' });
    const bmp = Buffer.alloc(54);
    bmp.write('BM', 0, 'ascii');
    bmp.writeUInt32LE(54, 2);
    bmp.writeUInt32LE(40, 14);
    bmp.writeInt32LE(10, 18);
    bmp.writeInt32LE(10, 22);
    expect(probeImage(bmp)).toEqual({ ok: false, detected: 'bmp' });
  });

  it.each([
    ['empty', Buffer.alloc(0)],
    ['text', Buffer.from('name,email\nAda,ada@example.com\n')],
    ['zeros (TGA look-alike)', Buffer.alloc(64)],
    ['a PNG signature alone', png(8, 8).subarray(0, 8)],
    ['an ICO header pointing past the end', ico(64).subarray(0, 40)],
  ])('rejects %s', (_name, bytes) => {
    expect(probeImage(bytes)).toEqual({ ok: false, detected: null });
  });

  it('judges an ICO against the whole size when only its head is at hand', () => {
    const full = ico(64);
    expect(probeImage(full.subarray(0, 30), full.length).ok).toBe(true);
  });
});
