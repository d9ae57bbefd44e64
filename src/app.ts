import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from './platform/context.js';
import { OpenApiRegistry } from './platform/openapi.js';
import { problemResponse } from './platform/problem.js';
import { Router } from './platform/route.js';
import { ServiceError } from './platform/service-error.js';
import type { Service } from './service.js';
import { apiKeyGate } from './auth/auth.middleware.js';
import { registerAuthRoutes } from './auth/auth.routes.js';
import { registerAgentRoutes } from './agents/agents.routes.js';

export interface AppOptions {
  /** Middleware that runs after the request id is set and before any route (journal, faults). */
  middleware?: MiddlewareHandler<AppEnv>[];
  /** Registers extra routes (the emulator's control plane) before the service's own. */
  extend?: (app: Hono<AppEnv>, router: Router) => void;
}

/**
 * The HTTP shell: request ids, RFC 9457 problems for every failure, the `/v1` key gate,
 * and every route of the service, each described in `GET /v1/openapi.json`.
 */
export function createApp(service: Service, options: AppOptions = {}) {
  const app = new Hono<AppEnv>();
  const openapi = new OpenApiRegistry();
  const router = new Router(app, openapi, service.idempotency);

  app.use(async (c, next) => {
    const requestId = service.ids.next('req');
    c.set('requestId', requestId);
    c.set('docsUrl', service.settings.docsUrl);
    await next();
    c.res.headers.set('x-request-id', requestId);
  });
  app.onError((error, c) => {
    if (error instanceof ServiceError) return problemResponse(c, error);
    service.settings.log(`unexpected error on ${c.req.method} ${c.req.path} (${c.get('requestId')})`, error);
    return problemResponse(c, new ServiceError('svc.internal.error'));
  });
  app.notFound((c) => problemResponse(c, new ServiceError('svc.resource.not_found')));
  for (const mw of options.middleware ?? []) app.use(mw);

  app.use('/workspaces/*', async (c, next) => {
    c.set('plainJsonErrors', true);
    await next();
  });
  options.extend?.(app, router);

  app.use('/v1/*', apiKeyGate({ auth: service.auth, workspaces: service.workspaces, rateLimiter: service.rateLimiter, clock: service.clock }));
  router.add(
    {
      method: 'GET', path: '/v1/openapi.json', security: 'none', tags: ['Meta'],
      summary: 'This OpenAPI 3.1 description',
      responses: { 200: { description: 'OpenAPI document' } },
    },
    () => ({ status: 200, body: openapi.document() }),
  );
  registerAuthRoutes(router, service.auth);
  registerAgentRoutes(router, service.agents);

  return { app, openapi, router };
}
