import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { AppEnv } from './platform/context.js';
import { OpenApiRegistry } from './platform/openapi.js';
import { problemResponse } from './platform/problem.js';
import { applyResponseHeaders } from './platform/response.js';
import { Router } from './platform/route.js';
import { ServiceError } from './platform/service-error.js';
import type { Service } from './service.js';
import { apiKeyGate } from './auth/auth.middleware.js';
import { registerAuthRoutes } from './auth/auth.routes.js';
import { registerAgentRoutes } from './agents/agents.routes.js';
import { registerChatRoutes } from './agents/chat.routes.js';
import { registerKnowledgeRoutes } from './knowledge/knowledge.routes.js';
import { registerProjectsRoutes } from './projects/projects.routes.js';
import { registerPagesRoutes } from './pages/pages.routes.js';
import { registerThemeRoutes } from './theme/theme.routes.js';
import { registerAssetsRoutes } from './assets/assets.routes.js';
import { registerBrandRoutes } from './brand/brand.routes.js';
import { registerUsageRoutes } from './usage/usage.routes.js';

export interface AppOptions {
  /** Middleware that runs after the request id is set and before any route (faults). */
  middleware?: MiddlewareHandler<AppEnv>[];
  /**
   * Runs before routing. A response it returns, or a `ServiceError` it throws, is the
   * answer and no route runs (the emulator's fault injection and hosted sites).
   */
  intercept?: (c: Context<AppEnv>) => Response | Promise<Response | undefined> | undefined;
  /** Called with every answer before it leaves (the request journal). */
  onResponse?: (c: Context<AppEnv>) => void | Promise<void>;
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
  const gate = apiKeyGate({ auth: service.auth, workspaces: service.workspaces, rateLimiter: service.rateLimiter, clock: service.clock });
  const router = new Router(app, openapi, service.idempotency, gate);

  const requestIds = service.ids.fork('requests');
  app.use(async (c, next) => {
    const requestId = requestIds.next('req');
    c.set('requestId', requestId);
    c.set('responseHeaders', { 'x-request-id': requestId });
    c.set('docsUrl', service.settings.docsUrl);
    let answer: Response | undefined;
    try {
      const early = options.intercept?.(c);
      answer = early instanceof Promise ? await early : early;
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      answer = problemResponse(c, error);
    }
    if (answer) c.res = answer;
    else await next();
    applyResponseHeaders(c);
    const recorded = options.onResponse?.(c);
    if (recorded instanceof Promise) await recorded;
  });
  app.onError((error, c) => {
    if (error instanceof ServiceError) return problemResponse(c, error);
    service.settings.log(`unexpected error on ${c.req.method} ${c.req.path} (${c.get('requestId')})`, error);
    return problemResponse(c, new ServiceError('svc.internal.error'));
  });
  app.notFound(async (c) => {
    try {
      // Under /v1 an unknown route or method is a 404 only for a caller the gate admits.
      if (c.req.path === '/v1' || c.req.path.startsWith('/v1/')) await gate(c);
      throw new ServiceError('svc.resource.not_found');
    } catch (error) {
      if (error instanceof ServiceError) return problemResponse(c, error);
      throw error;
    }
  });
  for (const mw of options.middleware ?? []) app.use(mw);

  app.use('/workspaces/*', async (c, next) => {
    c.set('plainJsonErrors', true);
    await next();
  });
  options.extend?.(app, router);

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
  registerChatRoutes(router, { retrieval: service.retrieval, chat: service.chat, log: service.settings.log });
  registerKnowledgeRoutes(router, service.knowledge);
  registerProjectsRoutes(router, service.projects);
  registerPagesRoutes(router, service.pages);
  registerThemeRoutes(router, service.theme);
  registerAssetsRoutes(router, service.assets);
  registerBrandRoutes(router, service.brand);
  registerUsageRoutes(router, service.usage);

  return { app, openapi, router };
}
