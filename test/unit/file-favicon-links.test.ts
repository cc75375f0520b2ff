import { describe, expect, it } from 'vitest';
import { chooseIconUrl, iconLinks, looksLikeHtml } from '../../src/domain/files/favicon-links.js';

const page = new URL('https://shop.example/products/index.html');

describe('favicon links of a web page', () => {
  it('picks the largest declared size', () => {
    const html = `<!doctype html><html><head>
      <link rel="icon" href="/favicon-32.png" sizes="32x32">
      <link rel="apple-touch-icon" href="touch.png" sizes="180x180">
      <LINK REL='shortcut icon' HREF='/big.png' SIZES='16x16 256x256'>
      <link rel="stylesheet" href="/site.css">
    </head><body></body></html>`;
    expect(chooseIconUrl(html, page).href).toBe('https://shop.example/big.png');
    expect(iconLinks(html, page).map((l) => [l.url.pathname, l.area])).toEqual([
      ['/favicon-32.png', 32 * 32],
      ['/products/touch.png', 180 * 180],
      ['/big.png', 256 * 256],
    ]);
  });

  it('takes the first icon when none declares a size, and resolves against <base>', () => {
    const html = `<head><base href="https://cdn.example/assets/"><link rel=icon href=first.ico><link rel="apple-touch-icon" href="second.png"></head>`;
    expect(chooseIconUrl(html, page).href).toBe('https://cdn.example/assets/first.ico');
  });

  it('falls back to /favicon.ico of the page origin', () => {
    expect(chooseIconUrl('<html><head><title>x</title></head></html>', page).href).toBe('https://shop.example/favicon.ico');
  });

  it('ignores commented-out and scripted links, SVG icons, and non-http hrefs', () => {
    const html = `<head>
      <!-- <link rel="icon" href="/commented.png" sizes="512x512"> -->
      <script>document.write('<link rel="icon" href="/scripted.png" sizes="512x512">')</script>
      <link rel="icon" type="image/svg+xml" href="/vector.svg" sizes="any">
      <link rel="icon" href="/mask.svg" sizes="999x999">
      <link rel="icon" href="data:image/png;base64,AAAA" sizes="300x300">
      <link rel="icon" href="javascript:alert(1)">
      <link rel="icon" href="/real.png?v=1&amp;x=2" sizes="64x64">
    </head>`;
    expect(iconLinks(html, page).map((l) => l.url.href)).toEqual(['https://shop.example/real.png?v=1&x=2']);
  });

  it('survives hostile markup in bounded time', () => {
    const hostile = '<link '.repeat(50_000) + '<!--' + '<script'.repeat(10_000);
    const started = process.hrtime.bigint();
    expect(chooseIconUrl(hostile, page).href).toBe('https://shop.example/favicon.ico');
    // Generous: a quadratic scan of this input takes minutes.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5000);
  });

  it('tells HTML from other bodies', () => {
    expect(looksLikeHtml('text/html; charset=utf-8', Buffer.from(''))).toBe(true);
    expect(looksLikeHtml(null, Buffer.from('\uFEFF  <!DOCTYPE html><html>'))).toBe(true);
    expect(looksLikeHtml('application/octet-stream', Buffer.from('<html><head>'))).toBe(true);
    expect(looksLikeHtml('image/png', Buffer.from('<html>'))).toBe(false);
    expect(looksLikeHtml('text/plain', Buffer.from('hello'))).toBe(false);
  });
});
