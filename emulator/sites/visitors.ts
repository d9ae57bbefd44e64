import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { AppEnv } from '../../src/platform/context.js';
import { requestHeader } from '../../src/platform/response.js';

/** Every request answered in process (`emulator.fetch`) comes from this one visitor. */
export const IN_PROCESS_VISITOR = 'in-process';

/**
 * Who an anonymous visitor of a hosted site is: the client address of the connection
 * when served on a port, or one shared visitor in process. `X-Forwarded-For` is anyone's
 * to write, so it counts only when `trustForwardedFor` says a proxy in front sets it.
 */
export function visitorOf(c: Context<AppEnv>, trustForwardedFor: boolean): string {
  if (!(c.env as { incoming?: unknown } | undefined)?.incoming) return IN_PROCESS_VISITOR;
  if (trustForwardedFor) {
    // The proxy appends the address it saw: the last entry is the one it vouches for.
    const forwarded = requestHeader(c, 'x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded && ipaddr.isValid(forwarded)) return addressKey(forwarded);
  }
  return addressKey(getConnInfo(c).remote.address ?? '');
}

function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return 'unknown';
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  // One subscriber holds a whole /64 and may use any address in it: count the prefix.
  return `${(ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16)).join(':')}::/64`;
}

/**
 * Fixed windows per visitor on the emulated clock, aligned like the per-key rate limit.
 * Windows that ended are forgotten when the map grows, so a stream of addresses cannot
 * grow it without bound.
 */
export class VisitorLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  #sweepAt = 1024;

  /** Counts one turn; answers the seconds to wait when it is over `limit`, else 0. */
  hit(visitor: string, limit: number, windowSeconds: number, now: number): number {
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    let entry = this.#windows.get(visitor);
    if (!entry || entry.start !== start) {
      entry = { start, count: 0 };
      this.#windows.set(visitor, entry);
      if (this.#windows.size >= this.#sweepAt) this.#sweep(start);
    }
    entry.count += 1;
    return entry.count <= limit ? 0 : Math.max(1, Math.ceil((start + windowMs - now) / 1000));
  }

  clear(): void {
    this.#windows.clear();
  }

  #sweep(current: number): void {
    for (const [visitor, entry] of this.#windows) if (entry.start < current) this.#windows.delete(visitor);
    this.#sweepAt = Math.max(1024, this.#windows.size * 2);
  }
}
