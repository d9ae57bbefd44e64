import * as v from 'valibot';
import { named } from '../platform/named-schema.js';
import type { Router } from '../platform/route.js';
import { ServiceError } from '../platform/service-error.js';
import type { AgentsService } from './agents.service.js';
import { idParam } from '../platform/openapi.js';
import { AgentCreateSchema, AgentDeletedSchema, AgentListQuerySchema, AgentListSchema, AgentPatchSchema, AgentSchema } from './agents.schema.js';

// Any JSON at all: the retired theme route answers 410 whatever it is sent.
const RetiredThemeBody = named('RetiredThemeBody', v.unknown());

/** `/v1/agents` CRUD and the retired per-agent theme route. */
export function registerAgentRoutes(router: Router, agents: AgentsService): void {
  const tags = ['Agents'];
  const params = { agentId: idParam('agent', 'agt') };
  router.add(
    {
      method: 'POST',
      path: '/v1/agents',
      operationId: 'createAgent',
      tags,
      summary: 'Create an agent',
      scope: 'landings:write',
      body: AgentCreateSchema,
      invalid: 'svc.agent.invalid',
      responses: { 201: { description: 'The agent', schema: AgentSchema } },
      errors: ['svc.agent.invalid', 'svc.billing.limit_reached', 'svc.request.invalid'],
    },
    async ({ auth, body }) => ({ status: 201, body: await agents.create(auth.workspaceId, body) }),
  );
  router.add(
    {
      method: 'GET',
      path: '/v1/agents',
      operationId: 'listAgents',
      tags,
      summary: 'List agents, newest first',
      scope: 'landings:read',
      query: AgentListQuerySchema,
      responses: { 200: { description: 'A page of agents', schema: AgentListSchema } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ auth, query }) => ({ status: 200, body: await agents.list(auth.workspaceId, query) }),
  );
  router.add(
    {
      method: 'GET',
      path: '/v1/agents/:agentId',
      operationId: 'getAgent',
      tags,
      params,
      summary: 'Get an agent',
      scope: 'landings:read',
      responses: { 200: { description: 'The agent', schema: AgentSchema } },
      errors: ['svc.agent.not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await agents.getAgentOrThrow(auth.workspaceId, params.agentId) }),
  );
  router.add(
    {
      method: 'PATCH',
      path: '/v1/agents/:agentId',
      operationId: 'updateAgent',
      tags,
      params,
      summary: 'Edit an agent (partial)',
      scope: 'landings:write',
      body: AgentPatchSchema,
      invalid: 'svc.agent.invalid',
      responses: { 200: { description: 'The agent', schema: AgentSchema } },
      errors: ['svc.agent.invalid', 'svc.agent.not_found', 'svc.request.invalid'],
    },
    async ({ auth, params, body }) => ({ status: 200, body: await agents.update(auth.workspaceId, params.agentId, body) }),
  );
  router.add(
    {
      method: 'DELETE',
      path: '/v1/agents/:agentId',
      operationId: 'deleteAgent',
      tags,
      params,
      summary: 'Delete an agent and its own sources',
      scope: 'landings:write',
      responses: { 200: { description: 'What was deleted', schema: AgentDeletedSchema } },
      errors: ['svc.agent.not_found', 'svc.agent.in_use'],
    },
    async ({ auth, params }) => ({ status: 200, body: await agents.delete(auth.workspaceId, params.agentId) }),
  );
  const retired = [
    ['GET', 'landings:read', 'getAgentTheme'],
    ['PATCH', 'landings:write', 'updateAgentTheme'],
  ] as const;
  for (const [method, scope, operationId] of retired) {
    router.add(
      {
        method,
        path: '/v1/agents/:agentId/theme',
        operationId,
        tags,
        params,
        scope,
        summary: 'Retired: appearance belongs to the project brand and theme',
        deprecated: true,
        responses: {},
        errors: ['svc.theme.retired'],
        // Whatever JSON a PATCH sends, the answer is 410: the route is gone (D-1165 reads the body first).
        ...(method === 'PATCH' && { body: RetiredThemeBody, bodyRequired: false }),
      },
      () => {
        throw new ServiceError('svc.theme.retired');
      },
    );
  }
}
