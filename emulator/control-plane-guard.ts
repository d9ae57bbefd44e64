import type { Context, MiddlewareHandler } from 'hono';
import ipaddr from 'ipaddr.js';
import type { AppEnv } from '../src/platform/context.js';
import { safeEqual } from '../src/platform/crypto.js';
import { requestHeader } from '../src/platform/response.js';
import { ServiceError } from '../src/platform/service-error.js';

/**
 * Hosts the control plane answers on besides localhost names and IP addresses: exact
 * names, `.example.test` for that name and every name under it, or `all` (no Host check).
 */
export type AllowedHosts = 'all' | readonly string[];

const AUTHORITY_NOISE = /[@/?#\\\s]/;

/** The hostname of a `Host` value or an allowed-host entry, lowercase, no final dot. */
function hostnameOf(authority: string): string | undefined {
  if (authority === '' || AUTHORITY_NOISE.test(authority)) return undefined;
  try {
    return new URL(`http://${authority}`).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/** One allowed-host entry as a hostname, or undefined when it is not a bare host name. */
function entryHostname(bare: string): string | undefined {
  const authority = ipaddr.IPv6.isValid(bare) ? `[${bare}]` : bare;
  // A port, a path, a wildcard or credentials is a mistake: refuse rather than drop it.
  if (authority.includes('*') || (authority.includes(':') && !authority.startsWith('['))) return undefined;
  const name = hostnameOf(authority);
  return name === '' ? undefined : name;
}

/**
 * Reads `--allowed-host` values (each may hold several, comma-separated). Answers `all`
 * when any value is `all`; throws naming the first value that is not a host name.
 */
export function parseAllowedHosts(values: Iterable<string>): AllowedHosts {
  const hosts: string[] = [];
  for (const value of values) {
    for (const raw of value.split(',')) {
      const entry = raw.trim();
      if (entry === '') continue;
      if (entry.toLowerCase() === 'all') return 'all';
      const domain = entry.startsWith('.');
      const name = entryHostname(domain ? entry.slice(1) : entry);
      if (name === undefined) {
        throw new Error(`not a host name: "${entry}" (give a name such as emulator, .example.test for a domain and the names under it, an IP address, or all)`);
      }
      hosts.push(domain ? `.${name}` : name);
    }
  }
  return hosts;
}

/**
 * Hosts no DNS rebinding can produce: `localhost` and `*.localhost` (browsers resolve
 * them to loopback themselves) and IP addresses (a page at an address is that
 * address's own origin; rebinding needs a name the attacker controls), as in Vite and
 * webpack-dev-server.
 */
function isImplicitlyAllowed(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(bare));
}

function isAllowedHost(hostname: string, allowed: AllowedHosts): boolean {
  if (allowed === 'all' || isImplicitlyAllowed(hostname)) return true;
  return allowed.some((entry) => (entry.startsWith('.') ? hostname === entry.slice(1) || hostname.endsWith(entry) : hostname === entry));
}

/** A header value fit to quote in a detail: printable, short. */
function shown(value: string): string {
  const clean = value.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 100 ? `${clean.slice(0, 100)}...` : clean;
}

function forbidden(en: string, es: string): ServiceError {
  return new ServiceError('svc.auth.forbidden', { detail: { en, es } });
}

function foreignHost(host: string): ServiceError {
  return forbidden(
    `The control plane and console routes answer only on localhost, an IP address or a host allowed with --allowed-host; this request was for "${shown(host)}".`,
    `El plano de control y las rutas de consola solo responden en localhost, una dirección IP o un host permitido con --allowed-host; esta solicitud era para "${shown(host)}".`,
  );
}

function foreignPage(why: string): ServiceError {
  return forbidden(
    `The control plane and console routes refuse requests sent by a web page of another origin (${shown(why)}).`,
    `El plano de control y las rutas de consola rechazan las solicitudes enviadas por una página web de otro origen (${shown(why)}).`,
  );
}

/** The answer to a missing or wrong admin token. */
function adminUnauthorized(): ServiceError {
  return new ServiceError('svc.auth.unauthorized', {
    detail: { en: 'Send the admin token as Authorization: Bearer <token>.', es: 'Envíe el token de administración como Authorization: Bearer <token>.' },
  });
}

/** The authority the request was sent to: its `Host` header, else its URL's (in process). */
function requestAuthority(c: Context<AppEnv>): string {
  return requestHeader(c, 'host') ?? new URL(c.req.url).host;
}

/**
 * Refuses what a web page could send on the developer's behalf: a `Host` name that is
 * neither localhost, an address nor allowed (DNS rebinding), and any browser request
 * from another origin (`Sec-Fetch-Site` other than `same-origin`/`none`, or an `Origin`
 * that is not this request's own). Requests without those headers (curl, SDKs, tests)
 * are not a browser's.
 */
function checkCaller(c: Context<AppEnv>, allowed: AllowedHosts, checkHost: boolean): void {
  const authority = requestAuthority(c);
  if (checkHost) {
    // The URL's host differs from the header only for an absolute-form target: both must pass.
    for (const candidate of new Set([authority, new URL(c.req.url).host])) {
      const hostname = hostnameOf(candidate);
      if (hostname === undefined || !isAllowedHost(hostname, allowed)) throw foreignHost(candidate);
    }
  }
  const site = requestHeader(c, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw foreignPage(`Sec-Fetch-Site: ${site}`);
  const origin = requestHeader(c, 'origin');
  if (origin !== undefined && !isOwnOrigin(origin, authority)) throw foreignPage(`Origin: ${origin}`);
}

function isOwnOrigin(origin: string, authority: string): boolean {
  if (origin === 'null' || !URL.canParse(origin)) return false;
  const parsed = new URL(origin);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  if (AUTHORITY_NOISE.test(authority) || !URL.canParse(`${parsed.protocol}//${authority}`)) return false;
  return parsed.host === new URL(`${parsed.protocol}//${authority}`).host;
}

const isHealth = (c: Context<AppEnv>) => (c.req.method === 'GET' || c.req.method === 'HEAD') && c.req.path === '/_emulator/health';

/**
 * The guard of `/_emulator/*` and `/workspaces/*`: the caller checks above, then the
 * admin token when one is set (compared in constant time). `GET /_emulator/health`
 * needs neither a known host nor the token (readiness probes may name a service and
 * hold no secret; it says only status and version), but is still refused to another
 * origin's web page.
 */
export function controlPlaneGuard(options: {
  allowedHosts: AllowedHosts;
  adminToken?: string | undefined;
  /** Requests that need no token but pass the caller checks (the UI's page and files, which hold no data). */
  tokenFree?: ((method: string, path: string) => boolean) | undefined;
}): MiddlewareHandler<AppEnv> {
  const { allowedHosts, adminToken, tokenFree } = options;
  return async (c, next) => {
    const health = isHealth(c);
    checkCaller(c, allowedHosts, !health);
    if (adminToken !== undefined && !health && !tokenFree?.(c.req.method, c.req.path)) {
      const given = /^Bearer (.+)$/i.exec(requestHeader(c, 'authorization') ?? '')?.[1] ?? '';
      if (!safeEqual(given, adminToken)) throw adminUnauthorized();
    }
    return next();
  };
}
