import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { BlockedClass } from '../../platform/ingest-failures.js';

// ipaddr.js range names that have a class of their own; every other range that is not
// `unicast` (broadcast, documentation, 6to4, Teredo, NAT64, benchmarking...) is `reserved`.
const CLASSES: Record<string, BlockedClass> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link_local',
  uniqueLocal: 'unique_local',
  carrierGradeNat: 'carrier_grade_nat',
  multicast: 'multicast',
  unspecified: 'unspecified',
};

const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

function classify(ip: ipaddr.IPv4 | ipaddr.IPv6): BlockedClass | undefined {
  const range = ip.range();
  if (range !== 'unicast') return CLASSES[range] ?? 'reserved';
  // IPv6 outside 2000::/3 is not assigned for global unicast.
  if (ip.kind() === 'ipv6' && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST, 3)) return 'reserved';
  return undefined;
}

/**
 * The blocked class of an IP address, or undefined for a public unicast address.
 * IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`) IPv6 addresses are
 * judged as their IPv4. Anything that is not an address is `reserved` (fail closed).
 */
export function blockedClass(address: string): BlockedClass | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return 'reserved';
  const ip = ipaddr.process(bare);
  if (ip.kind() === 'ipv6') {
    const parts = (ip as ipaddr.IPv6).parts;
    const high = parts.slice(0, 6).every((p) => p === 0);
    const low = (parts[6]! << 16) + parts[7]!;
    if (high && low > 1) return classify(ipaddr.IPv4.parse([parts[6]! >> 8, parts[6]! & 255, parts[7]! >> 8, parts[7]! & 255].join('.')));
  }
  return classify(ip);
}

export type HostKind = { kind: 'address'; address: string } | { kind: 'localhost' } | { kind: 'name'; name: string };

/**
 * What a URL's host is: a literal address (WHATWG `URL` has already normalised decimal,
 * octal, hex and short IPv4 forms to dotted quads), a `localhost` name, or a DNS name.
 */
export function hostKind(url: URL): HostKind {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host)) return { kind: 'address', address: host };
  const name = host.replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return { kind: 'localhost' };
  return { kind: 'name', name };
}
