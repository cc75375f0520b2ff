/**
 * For `purpose: account_favicon` the spec lets `image_url` be a website "from
 * which an icon is resolved" (spec "Files"). Browsers resolve it from the
 * page's `<link rel="icon">` (or `apple-touch-icon`) elements, else from
 * `/favicon.ico`; we do the same, preferring the largest declared size since
 * a favicon must be at least 128x128.
 */

const ICON_RELS = new Set(['icon', 'apple-touch-icon', 'apple-touch-icon-precomposed']);
// A regex scan, not a DOM: only <link> and <base> tags matter. Pages are untrusted, so
// every pattern is bounded (no unbounded scan per match start).
const TAG = /<(link|base)\b([^>]{0,4096})>/gi;
const ATTR = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function attributes(source: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of source.matchAll(ATTR)) {
    const name = (m[1] as string).toLowerCase();
    if (!out.has(name)) out.set(name, decodeEntities(m[2] ?? m[3] ?? m[4] ?? '').trim());
  }
  return out;
}

/** Largest area among `sizes="16x16 32x32"`; 0 when none is declared (`any` included: it means SVG). */
function largestDeclared(sizes: string | undefined): number {
  let best = 0;
  for (const token of (sizes ?? '').split(/\s+/)) {
    const m = /^(\d{1,5})[xX](\d{1,5})$/.exec(token);
    if (m) best = Math.max(best, Number(m[1]) * Number(m[2]));
  }
  return best;
}

/**
 * Drops comments and script bodies, which can hold markup that is not part of
 * the document; one forward pass, an unclosed one runs to the end (as in browsers).
 */
function withoutInertText(html: string): string {
  const open = /<!--|<script\b/gi;
  let out = '';
  let at = 0;
  for (;;) {
    open.lastIndex = at;
    const m = open.exec(html);
    if (!m) return out + html.slice(at);
    out += html.slice(at, m.index);
    const close = m[0] === '<!--' ? /-->/g : /<\/script\s*>/gi;
    close.lastIndex = m.index + m[0].length;
    const end = close.exec(html);
    if (!end) return out;
    at = end.index + end[0].length;
  }
}

export interface IconLink {
  url: URL;
  /** Largest declared width x height, 0 when undeclared. */
  area: number;
}

/** Icon links of a page, in document order, resolved against `<base href>` or the page URL. */
export function iconLinks(html: string, pageUrl: URL): IconLink[] {
  const text = withoutInertText(html);
  let base = pageUrl;
  const found: IconLink[] = [];
  for (const m of text.matchAll(TAG)) {
    const attrs = attributes(m[2] ?? '');
    const href = attrs.get('href');
    if (href === undefined || href === '') continue;
    if ((m[1] as string).toLowerCase() === 'base') {
      try {
        base = new URL(href, pageUrl);
      } catch {
        // An unusable <base> is ignored, as browsers do.
      }
      continue;
    }
    const rels = (attrs.get('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rels.some((r) => ICON_RELS.has(r))) continue;
    // SVG icons are not an accepted upload type; skip them so a raster icon can win.
    if ((attrs.get('type') ?? '').toLowerCase() === 'image/svg+xml') continue;
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    if (/\.svgz?$/i.test(url.pathname)) continue;
    found.push({ url, area: largestDeclared(attrs.get('sizes')) });
  }
  return found;
}

/** The icon to fetch for a page: the largest declared one, else the first, else /favicon.ico. */
export function chooseIconUrl(html: string, pageUrl: URL): URL {
  const links = iconLinks(html, pageUrl);
  let best: IconLink | undefined;
  for (const link of links) if (link.area > 0 && (best === undefined || link.area > best.area)) best = link;
  return (best ?? links[0])?.url ?? new URL('/favicon.ico', pageUrl);
}

/** HTML by its declared type, or by how it starts when the type is missing or generic. */
export function looksLikeHtml(contentType: string | null, head: Buffer): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'text/html' || type === 'application/xhtml+xml') return true;
  if (type !== '' && type !== 'text/plain' && type !== 'application/octet-stream') return false;
  const start = head.subarray(0, 1024).toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html') || start.startsWith('<head');
}
