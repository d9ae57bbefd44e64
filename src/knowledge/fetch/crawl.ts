import { IngestError } from '../pipeline/ingest-error.js';
import type { BlockedClass } from '../../platform/ingest-failures.js';
import { blockedClass, hostKind } from './address.js';
import type { Web } from '../ports.js';
import { judgeUrl, type UrlVerdict } from './url-policy.js';

/** CONTRACT (Knowledge): fetch timeout, body size, redirect hops. */
export const FETCH_LIMITS = { maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };

export interface Crawled {
  /** The last hop's URL (`resolvedUrl`). */
  url: string;
  contentType: string | undefined;
  body: Uint8Array;
}

export interface CrawlOptions {
  timeoutMs: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** The address judge; tests of the live fetcher replace it to reach a local server. */
  judge?: (address: string) => BlockedClass | undefined;
  /** The URL judge (scheme, port, credentials, literal hosts); replaceable like `judge`. */
  policy?: (url: URL) => UrlVerdict;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a URL source under the address rules: every hop's URL is judged (scheme,
 * port, literal address), names are resolved and every resolved address judged, the
 * connection goes to the judged address only, redirects are followed by hand (at most
 * five), and the time budget covers all hops. Failures are `IngestError`s carrying the
 * source's error code.
 */
export async function crawl(start: string, web: Web, options: CrawlOptions): Promise<Crawled> {
  const judge = options.judge ?? blockedClass;
  const policy = options.policy ?? judgeUrl;
  const maxBytes = options.maxBytes ?? FETCH_LIMITS.maxBytes;
  const maxRedirects = options.maxRedirects ?? FETCH_LIMITS.maxRedirects;
  let url = new URL(start);
  let budget = options.timeoutMs;
  for (let hop = 0; ; hop++) {
    url.hash = '';
    const verdict = policy(url);
    if (!verdict.ok && verdict.reason === 'shape') throw new IngestError('ingest_failed', `redirect to a forbidden ${verdict.detail}`);
    const host = hostKind(url);
    let address: string;
    if (host.kind === 'localhost') throw new IngestError('fetch_blocked_address:loopback');
    if (host.kind === 'address') {
      const blocked = judge(host.address);
      if (blocked) throw new IngestError(`fetch_blocked_address:${blocked}`);
      address = host.address;
    } else {
      const addresses = await web.resolve(host.name);
      if (addresses.length === 0) throw new IngestError('fetch_dns_failed');
      // One bad address is enough to refuse: a name that points inward is not public.
      for (const a of addresses) {
        const blocked = judge(a);
        if (blocked) throw new IngestError(`fetch_blocked_address:${blocked}`);
      }
      address = addresses[0]!;
    }
    const response = await web.get(url, address, budget, maxBytes);
    budget -= response.elapsedMs;
    if (budget < 0) throw new IngestError('fetch_timeout');
    if (response.body.byteLength > maxBytes) throw new IngestError('fetch_response_too_large');
    const location = response.headers.location;
    if (REDIRECTS.has(response.status) && location) {
      if (hop >= maxRedirects) throw new IngestError('ingest_failed', 'too many redirects');
      try {
        url = new URL(location, url);
      } catch {
        throw new IngestError('ingest_failed', 'bad redirect location');
      }
      continue;
    }
    if (response.status < 200 || response.status > 299) throw new IngestError('ingest_failed', `HTTP ${response.status}`);
    return { url: url.href, contentType: response.headers['content-type'], body: response.body };
  }
}
