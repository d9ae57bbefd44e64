import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { AppEnv } from '../../src/platform/context.js';
import { requestHeader } from '../../src/platform/response.js';
import { MemoryWindowCounters, type WindowCounters } from '../../src/platform/counters.js';

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
  return `${(ip as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`;
}

/**
 * Fixed windows per visitor on the emulated clock, aligned like the per-key rate limit.
 * The counts live in `counters`: memory (which forgets ended windows as it grows), or
 * the store when processes share it, so that every process counts the same turns.
 */
export class VisitorLimiter {
  constructor(private readonly counters: WindowCounters = new MemoryWindowCounters()) {}

  /** Counts one turn; answers the seconds to wait when it is over `limit`, else 0. */
  async hit(visitor: string, limit: number, windowSeconds: number, now: number): Promise<number> {
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const count = await this.counters.hit(visitor, start, start + windowMs);
    return count <= limit ? 0 : Math.max(1, Math.ceil((start + windowMs - now) / 1000));
  }

  clear(): void | Promise<void> {
    return this.counters.clear();
  }
}
