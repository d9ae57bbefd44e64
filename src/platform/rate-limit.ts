import { MemoryWindowCounters, type WindowCounters } from './counters.js';
import { getErrorSpec } from './error-codes.js';
import type { Detail } from './service-error.js';

const FROZEN = {
  en: 'The emulated clock is frozen (the emulator was started with a seed), so this window ends only when the clock moves: POST /_emulator/clock with { "advanceMs": <milliseconds> }.',
  es: 'El reloj emulado está detenido (el emulador se inició con una semilla), así que esta ventana solo termina cuando el reloj avanza: POST /_emulator/clock con { "advanceMs": <milisegundos> }.',
};

/**
 * A 429's `detail`: `base`, told how its window ends when `frozen` (decisions, D-1226): a
 * seeded emulator's clock stands still, so `Retry-After` never comes by waiting, and a
 * client that waits and retries would be refused forever without knowing why.
 */
export function windowDetail(frozen: boolean | undefined, base: { en: string; es: string } = getErrorSpec('svc.rate_limit.exceeded')): Detail {
  return frozen ? { en: `${base.en} ${FROZEN.en}`, es: `${base.es} ${FROZEN.es}` } : base;
}

/** The budget of one key in the current fixed window, after counting this request. */
export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  windowSeconds: number;
  /** Epoch seconds at which the window ends. */
  resetAt: number;
  /** Whole seconds from now until the window ends (at least 1). */
  secondsToReset: number;
}

/**
 * Fixed-window rate limiter per API key on the emulated clock. Windows are aligned to
 * multiples of their length since the epoch, so every key's window ends at a
 * predictable instant; the budget is shared by every route (decisions, D-009). The
 * counts live in `counters`: memory, or the store when processes share it (D-202).
 */
export class RateLimiter {
  constructor(private readonly counters: WindowCounters = new MemoryWindowCounters()) {}

  /** Counts one request of the key; synchronous with counters in memory. */
  hit(keyId: string, limit: number, windowSeconds: number, now: number): RateLimitVerdict | Promise<RateLimitVerdict> {
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const end = start + windowMs;
    const count = this.counters.hit(keyId, start, end);
    const verdict = (n: number): RateLimitVerdict => ({
      allowed: n <= limit,
      limit,
      remaining: Math.max(0, limit - n),
      windowSeconds,
      resetAt: Math.ceil(end / 1000),
      secondsToReset: Math.max(1, Math.ceil((end - now) / 1000)),
    });
    return typeof count === 'number' ? verdict(count) : count.then(verdict);
  }

  clear(): void | Promise<void> {
    return this.counters.clear();
  }
}

// Every request writes these: the parts that only change with the policy or the window
// are formatted once.
let policyKey = '';
let policyValue = '';
let limitValue = '';
let resetKey = -1;
let resetValue = '';

/** Writes the rate-limit headers of CONTRACT (Conventions) into `into`. */
export function rateLimitHeaders(v: RateLimitVerdict, into: Record<string, string> = {}): Record<string, string> {
  if (policyKey !== `${v.limit}/${v.windowSeconds}`) {
    policyKey = `${v.limit}/${v.windowSeconds}`;
    policyValue = `"default";q=${v.limit};w=${v.windowSeconds}`;
    limitValue = String(v.limit);
  }
  if (resetKey !== v.resetAt) {
    resetKey = v.resetAt;
    resetValue = String(v.resetAt);
  }
  into['X-RateLimit-Limit'] = limitValue;
  into['X-RateLimit-Remaining'] = String(v.remaining);
  into['X-RateLimit-Reset'] = resetValue;
  into['RateLimit-Policy'] = policyValue;
  into.RateLimit = `"default";r=${v.remaining};t=${v.secondsToReset}`;
  return into;
}
