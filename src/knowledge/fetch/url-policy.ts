import type { BlockedClass } from '../../platform/ingest-failures.js';
import { blockedClass, hostKind } from './address.js';

const PORTS = new Set(['', '80', '443', '8080', '8443']);

export type UrlVerdict =
  | { ok: true }
  /** `shape`: scheme, port or credentials; `address`: a blocked literal address or localhost. */
  | { ok: false; reason: 'shape'; detail: string }
  | { ok: false; reason: 'address'; blocked: BlockedClass };

/**
 * The address rules of CONTRACT (Knowledge) that can be judged without DNS: scheme
 * http or https, port 80, 443, 8080 or 8443 (implicit counts), no credentials, and a
 * host that is neither `localhost` nor a literal address in a blocked class.
 */
export function judgeUrl(url: URL): UrlVerdict {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'shape', detail: 'scheme' };
  if (!PORTS.has(url.port)) return { ok: false, reason: 'shape', detail: 'port' };
  if (url.username || url.password) return { ok: false, reason: 'shape', detail: 'credentials' };
  const host = hostKind(url);
  if (host.kind === 'localhost') return { ok: false, reason: 'address', blocked: 'loopback' };
  if (host.kind === 'address') {
    const blocked = blockedClass(host.address);
    if (blocked) return { ok: false, reason: 'address', blocked };
  }
  return { ok: true };
}
