import type { Context } from 'hono';
import type { AppEnv } from '../platform/context.js';
import { rateLimitHeaders, windowDetail, type RateLimiter, type RateLimitVerdict } from '../platform/rate-limit.js';
import { ServiceError } from '../platform/service-error.js';
import { requestHeader } from '../platform/response.js';
import type { Clock } from '../platform/clock.js';
import type { AuthService, Caller } from './auth.service.js';

/** Counts a workspace's activity of the day; false when past `cap` (counted all the same, D-1195). The workspaces part implements it. */
export interface ActivityRecorder {
  recordActivity(workspaceId: string, cap: number | null): boolean | Promise<boolean>;
}

/** Admits one `/v1` request, or throws the problem that refuses it. */
export type ApiKeyGate = (c: Context<AppEnv>) => void | Promise<void>;

/**
 * The gate of every `/v1` request, in order: API key (401 carries no rate-limit
 * headers, it has no key), the per-key rate limit (429 with `Retry-After`), the
 * workspace's daily activity cap (429 without it). Every request past the key check
 * counts as the day's activity, the two 429s included (CONTRACT: every authenticated
 * `/v1` request counts; D-1195). Every answer after the key check, errors included,
 * carries the rate-limit headers. The route wrapper calls it first,
 * and so does the not-found handler for unknown `/v1` paths (404 comes after auth).
 * Synchronous when the key is cached: it runs on every request (decisions, D-010).
 */
export function apiKeyGate(deps: { auth: AuthService; workspaces: ActivityRecorder; rateLimiter: RateLimiter; clock: Clock }): ApiKeyGate {
  const admit = (c: Context<AppEnv>, caller: Caller, verdict: RateLimitVerdict): void | Promise<void> => {
    rateLimitHeaders(verdict, c.get('responseHeaders'));
    const counted = deps.workspaces.recordActivity(caller.auth.workspaceId, caller.dailyActivityCap);
    const answer = (withinCap: boolean): void => {
      if (!verdict.allowed) {
        throw new ServiceError('svc.rate_limit.exceeded', {
          detail: windowDetail(deps.clock.frozen),
          headers: { 'Retry-After': String(verdict.secondsToReset) },
        });
      }
      if (!withinCap) throw new ServiceError('svc.usage.budget_exceeded');
    };
    return counted instanceof Promise ? counted.then(answer) : answer(counted);
  };
  const limit = (c: Context<AppEnv>, caller: Caller): void | Promise<void> => {
    c.set('auth', caller.auth);
    const verdict = deps.rateLimiter.hit(caller.auth.keyId, caller.rateLimit.limit, caller.rateLimit.windowSeconds, deps.clock.now());
    return verdict instanceof Promise ? verdict.then((v) => admit(c, caller, v)) : admit(c, caller, verdict);
  };
  return (c) => {
    const found = deps.auth.authenticate(requestHeader(c, 'authorization'));
    return found instanceof Promise ? found.then((caller) => limit(c, caller)) : limit(c, found);
  };
}
