import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../platform/context.js';
import { rateLimitHeaders, type RateLimiter } from '../platform/rate-limit.js';
import { ServiceError } from '../platform/service-error.js';
import type { Clock } from '../platform/clock.js';
import type { WorkspacesService } from '../workspaces/workspaces.service.js';
import type { AuthService } from './auth.service.js';

/** Routes under `/v1` that answer without a key. */
const PUBLIC_V1 = new Set(['/v1/openapi.json']);

/**
 * The gate of every `/v1` request, in order: API key (401 carries no rate-limit
 * headers, it has no key), the per-key rate limit (429 with `Retry-After`), the
 * workspace's daily activity cap (429 without it). Every answer after the key check,
 * errors included, carries the rate-limit headers.
 */
export function apiKeyGate(deps: {
  auth: AuthService;
  workspaces: WorkspacesService;
  rateLimiter: RateLimiter;
  clock: Clock;
}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (PUBLIC_V1.has(c.req.path)) return next();
    const caller = await deps.auth.authenticate(c.req.header('authorization'));
    c.set('auth', caller.auth);
    const verdict = deps.rateLimiter.hit(caller.auth.keyId, caller.rateLimit.limit, caller.rateLimit.windowSeconds, deps.clock.now());
    const headers = rateLimitHeaders(verdict);
    if (!verdict.allowed) {
      throw new ServiceError('svc.rate_limit.exceeded', { headers: { ...headers, 'Retry-After': String(verdict.secondsToReset) } });
    }
    if (!(await deps.workspaces.recordActivity(caller.auth.workspaceId, caller.dailyActivityCap))) {
      throw new ServiceError('svc.usage.budget_exceeded', { headers });
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
