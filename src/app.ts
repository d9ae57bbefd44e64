import { Hono, type Context } from 'hono';
import type { AppEnv } from './platform/context.js';
import { OpenApiDocumentSchema, OpenApiRegistry } from './platform/openapi.js';
import { problemResponse } from './platform/problem.js';
import { respond } from './platform/response.js';
import { createShell } from './platform/shell.js';
import { JSON_HEADERS, Router } from './platform/route.js';
import { ServiceError } from './platform/service-error.js';
import type { Service } from './service.js';
import { apiKeyGate } from './auth/auth.middleware.js';
import { registerAuthRoutes } from './auth/auth.routes.js';
import { registerAgentRoutes } from './agents/agents.routes.js';
import { registerRetrievalRoutes } from './retrieval/retrieval.routes.js';
import { registerChatRoutes } from './chat/chat.routes.js';
import { registerKnowledgeRoutes } from './knowledge/knowledge.routes.js';
import { registerProjectsRoutes } from './projects/projects.routes.js';
import { registerPagesRoutes } from './pages/pages.routes.js';
import { registerThemeRoutes } from './theme/theme.routes.js';
import { registerAssetsRoutes } from './assets/assets.routes.js';
import { registerBrandRoutes } from './brand/brand.routes.js';
import { registerUsageRoutes } from './usage/usage.routes.js';

export interface AppOptions {
  /**
   * Runs before routing. A response it returns, or a `ServiceError` it throws, is the
   * answer and no route runs (the emulator's fault injection and hosted sites).
   */
  intercept?: (c: Context<AppEnv>) => Response | Promise<Response | undefined> | undefined;
  /**
   * How a problem is shown when not as its document: a page for a browser on a hosted
   * site's host (the emulator's sites, D-873). Undefined keeps the problem document.
   */
  problemPage?: (c: Context<AppEnv>, error: ServiceError) => Promise<Response> | undefined;
  /** Called with every answer before it leaves (the request journal). */
  onResponse?: (c: Context<AppEnv>) => void | Promise<void>;
  /** Registers extra routes (the emulator's control plane) before the service's own. */
  extend?: (app: Hono<AppEnv>, router: Router) => void;
}

const UNAVAILABLE = {
  en: 'The database is out of reach; nothing was changed. Retry shortly.',
  es: 'La base de datos no responde; no se cambió nada. Reintente en un momento.',
};
const CONFLICTED = {
  en: 'Another writer needed the same records at the same moment; nothing was changed. Retry the request.',
  es: 'Otra escritura necesitaba los mismos registros en el mismo momento; no se cambió nada. Repita la solicitud.',
};

/**
 * The HTTP shell: request ids, RFC 9457 problems for every failure, the `/v1` key gate,
 * and every route of the service, each described in `GET /v1/openapi.json`.
 */
export function createApp(service: Service, options: AppOptions = {}) {
  const app = new Hono<AppEnv>();
  const openapi = new OpenApiRegistry();
  const gate = apiKeyGate({ auth: service.auth, workspaces: service.workspaces, rateLimiter: service.rateLimiter, clock: service.clock });
  const shell = createShell({
    requestIds: service.ids.fork('requests'),
    docsUrl: service.settings.docsUrl,
    intercept: options.intercept,
    onResponse: options.onResponse,
    sync: () => service.coherence.sync(),
  });
  const router = new Router(app, openapi, service.idempotency, gate, shell);
  const problem = (c: Context<AppEnv>, error: ServiceError): Response | Promise<Response> => {
    const page = options.problemPage?.(c, error);
    return page ? page.then((res) => shell.finish(c, res)) : shell.finish(c, problemResponse(c, error));
  };

  // The problem says what the client may know; the cause is for the operator (D-158).
  const logCause = (c: Context<AppEnv>, error: ServiceError) => {
    if (error.cause !== undefined) service.settings.log(`${error.code} on ${c.req.method} ${c.req.path} (${c.get('requestId')})`, error.cause);
  };
  const answerError = (error: Error, c: Context<AppEnv>): Response | Promise<Response> => {
    shell.begin(c);
    if (error instanceof ServiceError) {
      logCause(c, error);
      return problem(c, error);
    }
    // The database is out of reach: the request wrote nothing (its transaction did not
    // commit), and a retry once the database is back will do (D-206).
    if (service.store.unavailable(error)) return problem(c, new ServiceError('svc.service.unavailable', { detail: UNAVAILABLE }));
    // The database rolled the request's transaction back to let another writer through
    // (PostgreSQL shared by processes): the same promise, nothing written, retry (D-1129).
    if (service.store.conflicted(error)) return problem(c, new ServiceError('svc.service.unavailable', { detail: CONFLICTED }));
    service.settings.log(`unexpected error on ${c.req.method} ${c.req.path} (${c.get('requestId')})`, error);
    return problem(c, new ServiceError('svc.internal.error'));
  };
  // Hono sets `c.res` to what the error handler answers, after `shell.finish` has set it
  // to the same response: set twice, a response is built again from its body, which made
  // node-server's light response a whole one with a stream, most of a 404's cost (D-1218).
  // The answer is handed over unset, once everything that reads it has run.
  const handOver = (c: Context<AppEnv>, res: Response): Response => {
    c.res = undefined;
    return res;
  };
  app.onError((error, c) => {
    const answer = answerError(error, c);
    return answer instanceof Promise ? answer.then((res) => handOver(c, res)) : handOver(c, answer);
  });
  app.notFound(async (c) => {
    shell.begin(c);
    try {
      const early = await shell.intercept(c);
      if (early) return shell.finish(c, early);
      // Under /v1 an unknown route or method is a 404 only for a caller the gate admits.
      if (c.req.path === '/v1' || c.req.path.startsWith('/v1/')) await gate(c);
      throw new ServiceError('svc.resource.not_found');
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      logCause(c, error);
      return problem(c, error);
    }
  });
  // First of all: a stop waits until every request under way is answered (D-1163).
  app.use('*', (_c, next) => service.requests.track(next()));
  // Ahead of every route and middleware: a request the server could not read reaches
  // no handler, only the problem document (D-1117).
  app.use('*', async (c, next) => {
    const unreadable = c.env?.unreadable;
    if (unreadable !== undefined) throw new ServiceError('svc.request.invalid', { detail: unreadable.detail });
    await next();
  });
  app.use('/workspaces/*', async (c, next) => {
    shell.begin(c);
    c.set('plainJsonErrors', true);
    await next();
  });
  options.extend?.(app, router);

  router.add(
    {
      method: 'GET',
      path: '/v1/openapi.json',
      operationId: 'getOpenApiDescription',
      security: 'none',
      tags: ['Meta'],
      summary: 'This OpenAPI 3.1 description',
      responses: { 200: { description: 'OpenAPI document', schema: OpenApiDocumentSchema } },
    },
    ({ c }) => respond(c, 200, openapi.json(), JSON_HEADERS),
  );
  registerAuthRoutes(router, service.auth);
  registerAgentRoutes(router, service.agents);
  registerRetrievalRoutes(router, service.retrieval);
  registerChatRoutes(router, { chat: service.chat, log: service.settings.log, requests: service.requests });
  registerKnowledgeRoutes(router, service.knowledge);
  registerProjectsRoutes(router, service.projects);
  registerPagesRoutes(router, service.pages);
  registerThemeRoutes(router, service.theme);
  registerAssetsRoutes(router, service.assets);
  registerBrandRoutes(router, service.brand);
  registerUsageRoutes(router, service.usage);

  return { app, openapi, router };
}
