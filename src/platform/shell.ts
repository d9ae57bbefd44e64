import type { Context } from 'hono';
import type { AppEnv } from './context.js';
import type { IdGenerator } from './ids.js';
import { applyResponseHeaders } from './response.js';

/**
 * What every answer goes through, whoever produces it (a route, the not-found handler
 * or the error handler): the request id at the start, and at the end the headers
 * every answer carries and the journal. Kept out of a global middleware so that a
 * request matching one route takes Hono's direct path, with no middleware chain.
 */
export interface Shell {
  /** Sets the request id and the per-request headers; safe to call more than once. */
  begin(c: Context<AppEnv>): void;
  /** Runs before routing: a response (or a thrown `ServiceError`) answers instead of the route. */
  intercept(c: Context<AppEnv>): Response | Promise<Response | undefined> | undefined;
  /** Stamps the answer and records it; answers it. */
  finish(c: Context<AppEnv>, res: Response): Response | Promise<Response>;
}

export function createShell(options: {
  requestIds: IdGenerator;
  docsUrl: string | undefined;
  intercept?: ((c: Context<AppEnv>) => Response | Promise<Response | undefined> | undefined) | undefined;
  onResponse?: ((c: Context<AppEnv>) => void | Promise<void>) | undefined;
  /**
   * Brings this process up to date with what other processes sharing the store
   * changed, before anything else reads memory (coherence); synchronous when alone.
   */
  sync?: (() => void | Promise<void>) | undefined;
}): Shell {
  const { requestIds, docsUrl, intercept, onResponse, sync } = options;
  return {
    begin(c) {
      if (c.get('requestId')) return;
      const requestId = requestIds.next('req');
      c.set('requestId', requestId);
      c.set('responseHeaders', { 'x-request-id': requestId });
      c.set('docsUrl', docsUrl);
    },
    intercept(c) {
      const synced = sync?.();
      return synced instanceof Promise ? synced.then(() => intercept?.(c)) : intercept?.(c);
    },
    finish(c, res) {
      c.res = res;
      applyResponseHeaders(c);
      const recorded = onResponse?.(c);
      return recorded instanceof Promise ? recorded.then(() => res) : res;
    },
  };
}
