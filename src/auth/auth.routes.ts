import { idParam } from '../platform/openapi.js';
import type { Router } from '../platform/route.js';
import { ListQuerySchema } from '../platform/pagination.js';
import type { AuthService } from './auth.service.js';
import { IdentitySchema, KeyCreatedSchema, KeyCreateSchema, KeyListSchema, KeyRecordSchema } from './auth.schema.js';

/** `GET /v1/me` and the console key routes `/workspaces/{tenantId}/keys`. */
export function registerAuthRoutes(router: Router, auth: AuthService): void {
  router.add(
    {
      method: 'GET',
      path: '/v1/me',
      operationId: 'getIdentity',
      summary: 'The workspace and scopes of the calling key',
      tags: ['Identity'],
      scope: null,
      responses: { 200: { description: 'Identity', schema: IdentitySchema } },
    },
    ({ auth: caller }) => ({ status: 200, body: auth.identity(caller) }),
  );

  const tenantId = idParam('workspace', 'ws');
  const console = { tags: ['Console keys'], security: 'admin' as const, params: { tenantId } };
  router.add(
    {
      ...console,
      method: 'POST',
      path: '/workspaces/:tenantId/keys',
      operationId: 'createKey',
      summary: 'Create an API key; the secret is shown only in this answer',
      body: KeyCreateSchema,
      responses: { 201: { description: 'The key with its secret', schema: KeyCreatedSchema } },
      errors: ['svc.request.validation_failed', 'svc.api_key.limit_reached', 'svc.tenant.not_found'],
    },
    async ({ params, body }) => ({ status: 201, body: await auth.createKey(params.tenantId, body) }),
  );
  router.add(
    {
      ...console,
      method: 'GET',
      path: '/workspaces/:tenantId/keys',
      operationId: 'listKeys',
      summary: 'List the keys of a workspace (never their secrets)',
      query: ListQuerySchema,
      responses: { 200: { description: 'Keys, newest first', schema: KeyListSchema } },
      errors: ['svc.request.validation_failed', 'svc.tenant.not_found'],
    },
    async ({ params, query }) => ({ status: 200, body: await auth.listKeys(params.tenantId, query) }),
  );
  router.add(
    {
      ...console,
      method: 'DELETE',
      path: '/workspaces/:tenantId/keys/:keyId',
      operationId: 'revokeKey',
      params: { tenantId, keyId: idParam('key', 'key') },
      summary: 'Revoke a key, effective at once',
      responses: { 200: { description: 'The key with revokedAt set', schema: KeyRecordSchema } },
      errors: ['svc.tenant.not_found', 'svc.resource.not_found'],
    },
    async ({ params }) => ({ status: 200, body: await auth.revokeKey(params.tenantId, params.keyId) }),
  );
}

