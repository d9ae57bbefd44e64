import type * as v from 'valibot';
import type { InFlight } from '../../src/platform/in-flight.js';
import type { StreamedTurn } from '../../src/chat/chat.service.js';
import { streamTurn } from '../../src/chat/chat-stream.js';
import { wantsStream } from '../../src/chat/chat.routes.js';
import { CHAT_STREAM, ChatAnswerSchema, ChatBodySchema, type ChatAnswer, type ChatBody } from '../../src/chat/chat.schema.js';
import { requestOrigin } from '../../src/assets/assets.routes.js';
import { idParam } from '../../src/platform/openapi.js';
import type { Router } from '../../src/platform/route.js';
import { WorkspaceRecordSchema } from '../../src/workspaces/workspaces.schema.js';
import type { WorkspaceRecord } from '../../src/workspaces/workspaces.service.js';
import {
  FixtureKeyListSchema,
  KeylessWorkspaceSchema,
  QueueQuerySchema,
  ResourcesQuerySchema,
  RESOURCES_MAX_PER_KIND,
  RESOURCES_PER_KIND,
  QueueSchema,
  WorkspaceListSchema,
  WorkspaceResourcesSchema,
  type FixtureKey,
  type QueueView,
  type WorkspaceResources,
  type WorkspaceSummary,
} from './inspect.schema.js';

/** What the inspection routes need of the emulator: reads, a keyless create, and a chat turn as a workspace. */
export interface Inspector {
  workspaces(): Promise<WorkspaceSummary[]>;
  /** The keys the fixtures made that are still active, with their secrets (D-852). */
  fixtureKeys(): Promise<FixtureKey[]>;
  createKeyless(input: v.InferOutput<typeof KeylessWorkspaceSchema>): Promise<WorkspaceRecord>;
  /** Throws `svc.tenant.not_found` for an unknown workspace. */
  resources(workspaceId: string, origin: string, limit?: number): Promise<WorkspaceResources>;
  queue(limit: number): Promise<QueueView>;
  /** A chat turn as the workspace itself (one credit, like `/v1`); throws `svc.tenant.not_found` first. */
  openChat(workspaceId: string, agentId: string, body: ChatBody): Promise<StreamedTurn>;
  answerChat(workspaceId: string, agentId: string, body: ChatBody, signal: AbortSignal): Promise<ChatAnswer>;
  log(message: string, error?: unknown): void;
  /** The requests being answered: a stop ends a turn under way and waits for it (D-1163). */
  requests: InFlight;
}

/**
 * The control-plane routes the emulator UI reads (and that any tool may): the
 * workspaces, one workspace's resources without knowing a key, the job queue, the
 * fixtures' keys; a workspace made without a key; and a chat turn as a workspace.
 */
export function registerInspectRoutes(router: Router, inspector: Inspector): void {
  const tags = ['Emulator'];
  const security = 'admin' as const;
  const workspaceId = idParam('workspace', 'ws');

  router.add(
    {
      method: 'GET',
      path: '/_emulator/workspaces',
      operationId: 'listWorkspaces',
      tags,
      security,
      summary: 'Every workspace with its settings and message credits (`messages`, as GET /v1/usage counts them), oldest first',
      responses: { 200: { description: 'Workspaces', schema: WorkspaceListSchema } },
    },
    async () => ({ status: 200, body: { data: await inspector.workspaces() } }),
  );

  router.add(
    {
      method: 'GET',
      path: '/_emulator/fixture-keys',
      operationId: 'listFixtureKeys',
      tags,
      security,
      summary:
        'The keys the loaded fixtures made that are still active, with their secrets, as the CLI prints them at start-up (none after `--fixtures none` or a state import)',
      responses: { 200: { description: 'Fixture keys', schema: FixtureKeyListSchema } },
    },
    async () => ({ status: 200, body: { data: await inspector.fixtureKeys() } }),
  );

  router.add(
    {
      method: 'POST',
      path: '/_emulator/workspaces/keyless',
      operationId: 'createKeylessWorkspace',
      tags,
      security,
      summary:
        'Create an isolated workspace with no key (mint keys with POST /workspaces/{tenantId}/keys); what the emulator UI uses, so it never receives a secret',
      body: KeylessWorkspaceSchema,
      responses: { 201: { description: 'Workspace settings', schema: WorkspaceRecordSchema } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ body }) => ({ status: 201, body: await inspector.createKeyless(body) }),
  );

  router.add(
    {
      method: 'GET',
      path: '/_emulator/workspaces/:workspaceId/resources',
      operationId: 'getWorkspaceResources',
      tags,
      security,
      params: { workspaceId },
      summary: `A workspace's settings, credits, keys (never their secrets), agents, sources with their ingestion status, projects, pages and assets: the newest ${RESOURCES_PER_KIND} of each, or \`limit\` (at most ${RESOURCES_MAX_PER_KIND}); \`hasMore\` says a kind has more`,
      query: ResourcesQuerySchema,
      responses: { 200: { description: 'Resources of the workspace', schema: WorkspaceResourcesSchema } },
      errors: ['svc.request.validation_failed', 'svc.tenant.not_found'],
    },
    async ({ c, params, query }) => ({ status: 200, body: await inspector.resources(params.workspaceId, requestOrigin(c), query.limit) }),
  );

  router.add(
    {
      method: 'GET',
      path: '/_emulator/queue',
      operationId: 'getQueue',
      tags,
      security,
      summary: 'The job queue: jobs waiting (due or scheduled on the emulated clock), running, or failed; by run time',
      query: QueueQuerySchema,
      responses: { 200: { description: 'Jobs and counts by status', schema: QueueSchema } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ query }) => ({ status: 200, body: await inspector.queue(query.limit) }),
  );

  router.add(
    {
      method: 'POST',
      path: '/_emulator/workspaces/:workspaceId/agents/:agentId/chat',
      operationId: 'chatAsWorkspace',
      tags,
      security,
      params: { workspaceId, agentId: idParam('agent', 'agt') },
      summary:
        'A chat turn as the workspace, without a key (one credit, as POST /v1/agents/{agentId}/chat); `Accept: text/event-stream` streams it as events start, token..., done or error',
      body: ChatBodySchema,
      responses: { 200: { description: 'The chat answer (JSON), or the event stream', schema: ChatAnswerSchema, stream: CHAT_STREAM } },
      errors: [
        'svc.request.validation_failed',
        'svc.tenant.not_found',
        'svc.chat.agent_scope_conflict',
        'svc.agent.not_found',
        'svc.resource.not_found',
        'svc.usage.quota_exhausted',
        'svc.service.unavailable',
        // A chat model (a port: it may be the caller's own) that fails answers 500.
        'svc.internal.error',
      ],
    },
    async ({ c, params, body }) => {
      const { workspaceId, agentId } = params as { workspaceId: string; agentId: string };
      if (!wantsStream(c)) {
        const answer = await inspector.requests.untilStopped(c.req.raw.signal, (signal) => inspector.answerChat(workspaceId, agentId, body, signal));
        return { status: 200, body: answer };
      }
      return streamTurn(c, await inspector.openChat(workspaceId, agentId, body), inspector.log, inspector.requests);
    },
  );
}
