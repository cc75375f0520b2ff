import { isIP } from 'node:net';

/**
 * Which addresses a server-side fetch (`image_url`) may connect to. Anything
 * that is not plainly on the public internet is refused: a URL a client
 * controls must never reach the host itself, its LAN, the cloud metadata
 * service (169.254.169.254) or a tunnel into them (server-side request forgery).
 */
export type AddressKind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link_local'
  | 'unique_local'
  | 'multicast'
  | 'documentation'
  | 'reserved'
  | 'invalid';

const KIND_TEXT: Record<AddressKind, string> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  private: 'private network',
  shared: 'carrier-grade NAT',
  link_local: 'link-local',
  unique_local: 'unique local',
  multicast: 'multicast',
  documentation: 'documentation',
  reserved: 'reserved',
  invalid: 'not an IP address',
};

/** Words for an error message: "loopback", "link-local", ... */
export const describeAddressKind = (kind: AddressKind): string => KIND_TEXT[kind];

const v4 = (dotted: string): number => dotted.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);

// IANA IPv4 special-purpose registry, less the few blocks that are globally reachable anycast.
const V4_BLOCKS: readonly (readonly [base: number, bits: number, kind: AddressKind])[] = [
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'shared'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link_local'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'reserved'],
  [v4('192.0.2.0'), 24, 'documentation'],
  [v4('192.88.99.0'), 24, 'reserved'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'reserved'],
  [v4('198.51.100.0'), 24, 'documentation'],
  [v4('203.0.113.0'), 24, 'documentation'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('240.0.0.0'), 4, 'reserved'],
];

function classifyV4(value: number): AddressKind | null {
  for (const [base, bits, kind] of V4_BLOCKS) {
    const size = 2 ** (32 - bits);
    if (value >= base && value < base + size) return kind;
  }
  return null;
}

/** Eight 16-bit groups, or null when the text is not IPv6. */
export function parseIPv6(text: string): number[] | null {
  const address = text.split('%')[0] ?? '';
  if (isIP(address) !== 6) return null;
  let head = address;
  const tail: number[] = [];
  // A dotted IPv4 tail (::ffff:127.0.0.1) stands for the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) {
    const n = v4(dotted[1] as string);
    tail.push(Math.floor(n / 65536), n % 65536);
    head = address.slice(0, -(dotted[1] as string).length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const toGroups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const [left, right] = head.split('::') as [string, string | undefined];
  const leftGroups = toGroups(left);
  const rightGroups = right === undefined ? [] : toGroups(right);
  const missing = 8 - leftGroups.length - rightGroups.length - tail.length;
  return [...leftGroups, ...new Array<number>(right === undefined ? 0 : missing).fill(0), ...rightGroups, ...tail];
}

const embeddedV4 = (hi: number, lo: number): number => hi * 65536 + lo;

function classifyV6(g: number[]): AddressKind | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroUntil = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (zeroUntil(8)) return 'unspecified';
  if (zeroUntil(7) && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d): the socket really talks IPv4 to the embedded address.
  if (zeroUntil(5) && g5 === 0xffff) return classifyV4(embeddedV4(g6, g7));
  // NAT64 well-known prefix 64:ff9b::/96 translates to the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(embeddedV4(g6, g7));
  // 6to4 (2002::/16) tunnels to the IPv4 address in groups 1-2.
  if (g0 === 0x2002) return classifyV4(embeddedV4(g1, g2));
  if (g0 >= 0xff00) return 'multicast';
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g0 & 0xfe00) === 0xfc00) return 'unique_local';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'documentation';
  if (g0 === 0x3fff && g1 < 0x1000) return 'documentation'; // 3fff::/20
  // 2001::/23 holds protocol assignments, Teredo tunnels among them.
  if (g0 === 0x2001 && g1 < 0x0200) return 'reserved';
  // Only 2000::/3 is global unicast; the rest (::/8 with IPv4-compatible, 100::/64 discard, ...) is not.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return null;
}

/**
 * Null for a public address; else what kind of non-public address it is.
 * Text that is not an IP address is never public.
 */
export function classifyAddress(ip: string): AddressKind | null {
  const family = isIP(ip.split('%')[0] ?? '');
  if (family === 4) return classifyV4(v4(ip));
  if (family === 6) {
    const groups = parseIPv6(ip);
    return groups === null ? 'invalid' : classifyV6(groups);
  }
  return 'invalid';
}

export const isPublicAddress = (ip: string): boolean => classifyAddress(ip) === null;
