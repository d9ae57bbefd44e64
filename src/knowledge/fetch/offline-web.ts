import ipaddr from 'ipaddr.js';
import * as v from 'valibot';
import { named } from '../../platform/named-schema.js';
import { clientText } from '../../platform/validation.js';
import { IngestError } from '../pipeline/ingest-error.js';
import type { HopResponse, Web } from '../ports.js';

// Where a registered page's host resolves when the dns table does not say: a public
// unicast address, so that the page passes the address rules like a real site.
const PUBLIC_ADDRESS = '93.184.215.14';

const PageUrl = v.pipe(
  clientText({ max: 2048 }),
  v.check((s) => URL.canParse(s) && ['http:', 'https:'].includes(new URL(s).protocol), 'must be an absolute http or https URL'),
);

const WebPageSchema = v.pipe(
  v.strictObject({
    url: PageUrl,
    status: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100, 'must be 100 to 599'), v.maxValue(599, 'must be 100 to 599')), 200),
    headers: v.optional(v.record(v.string(), v.string()), {}),
    body: v.optional(v.string()),
    /** Binary bodies (a PDF), base64-encoded. */
    bodyBase64: v.optional(v.pipe(v.string(), v.base64('must be base64'))),
    delayMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0, 'must be a non-negative integer')), 0),
  }),
  v.check((p) => p.body === undefined || p.bodyBase64 === undefined, 'send body or bodyBase64, not both'),
);

const HostSchema = clientText({ min: 1, max: 253 });
const AddressSchema = v.pipe(
  v.string(),
  v.check((s) => ipaddr.isValid(s), 'must be an IPv4 or IPv6 address'),
);

/** The body of `PUT /_emulator/web` (CONTRACT, control plane; decisions, D-078). */
export const WebDefinitionSchema = named(
  'OfflineWeb',
  v.pipe(
    v.strictObject({
      pages: v.pipe(v.array(WebPageSchema), v.maxLength(10_000, 'at most 10000 pages')),
      dns: v.optional(v.record(HostSchema, v.array(AddressSchema)), {}),
    }),
    v.forward(
      // valibot runs this even when a page's own URL check failed (a check is no type
      // error): such a page has no key, and its own issue already refuses the web (D-1174).
      v.check((web) => {
        const urls = web.pages.filter((p) => URL.canParse(p.url)).map((p) => pageKey(new URL(p.url)));
        return new Set(urls).size === urls.length;
      }, 'two pages have the same URL'),
      ['pages'],
    ),
  ),
);

export type WebDefinition = v.InferOutput<typeof WebDefinitionSchema>;
/** What `PUT /_emulator/web` and `emulator.setWeb` take (`headers`, `dns` and the rest may be left out). */
export type WebDefinitionInput = v.InferInput<typeof WebDefinitionSchema>;

export const WebSummarySchema = named('OfflineWebSummary', v.object({ pages: v.number(), hosts: v.number() }));

/** A host as URLs spell it: lowercase, punycode for international names, no final dot. */
function hostName(host: string): string {
  let name = host.toLowerCase();
  try {
    name = new URL(`http://${host}/`).hostname;
  } catch {
    // Not a valid host: it can only match nothing, which the raw form does too.
  }
  return name.replace(/\.$/, '');
}

function pageKey(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}

interface Page {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  delayMs: number;
}

/**
 * The offline web URL sources are fetched from by default: registered pages answer at
 * once (a `delayMs` over the time budget fails with `fetch_timeout` without waiting),
 * names resolve through the `dns` table, or to a public address when only pages name
 * them; anything else does not resolve (`fetch_dns_failed`).
 */
export class OfflineWeb implements Web {
  readonly #pages = new Map<string, Page>();
  readonly #dns = new Map<string, string[]>();
  readonly #pageHosts = new Set<string>();

  constructor(readonly definition: WebDefinition = { pages: [], dns: {} }) {
    for (const p of definition.pages) {
      const url = new URL(p.url);
      const headers = Object.fromEntries(Object.entries(p.headers).map(([k, val]) => [k.toLowerCase(), val]));
      const body = p.bodyBase64 !== undefined ? Buffer.from(p.bodyBase64, 'base64') : Buffer.from(p.body ?? '', 'utf8');
      this.#pages.set(pageKey(url), { status: p.status, headers, body, delayMs: p.delayMs });
      this.#pageHosts.add(url.hostname.replace(/\.$/, ''));
    }
    for (const [host, addresses] of Object.entries(definition.dns)) this.#dns.set(hostName(host), addresses);
  }

  get summary(): { pages: number; hosts: number } {
    return { pages: this.#pages.size, hosts: new Set([...this.#pageHosts, ...this.#dns.keys()]).size };
  }

  async resolve(name: string): Promise<string[]> {
    const host = name.toLowerCase();
    const listed = this.#dns.get(host);
    if (listed) return listed;
    return this.#pageHosts.has(host) ? [PUBLIC_ADDRESS] : [];
  }

  async get(url: URL, _address: string, budgetMs: number, maxBytes: number): Promise<HopResponse> {
    const page = this.#pages.get(pageKey(url));
    if (!page) return { status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Not Found'), elapsedMs: 0 };
    if (page.delayMs > budgetMs) throw new IngestError('fetch_timeout');
    if (page.body.byteLength > maxBytes) throw new IngestError('fetch_response_too_large');
    return { status: page.status, headers: page.headers, body: page.body, elapsedMs: page.delayMs };
  }
}
