import { BODY_LIMITS } from '../platform/http-body.js';
import { idParam } from '../platform/openapi.js';
import type { Router } from '../platform/route.js';
import type { KnowledgeService } from './knowledge.service.js';
import {
  ClaimAddSchema,
  SourceDeletedSchema,
  SourceListQuerySchema,
  SourceListSchema,
  SourceSchema,
  TextAddSchema,
  TopicListQuerySchema,
  TopicListSchema,
  TopicMergedSchema,
  TopicMergeSchema,
  UploadAddSchema,
  UrlAddSchema,
} from './knowledge.schema.js';

/** The knowledge routes under `/v1`. */
export function registerKnowledgeRoutes(router: Router, knowledge: KnowledgeService): void {
  const tags = ['Knowledge'];
  const params = { sourceId: idParam('source', 'src') };
  const accepted = { 202: { description: 'The source, `pending` until ingestion ends', schema: SourceSchema } };
  const addErrors = ['svc.knowledge.source_invalid', 'svc.agent.not_found', 'svc.billing.limit_reached', 'svc.request.invalid', 'svc.request.payload_too_large'] as const;

  router.add(
    {
      method: 'GET', path: '/v1/knowledge/sources', operationId: 'listSources', tags, summary: 'List sources with their ingestion status, newest first', scope: 'knowledge:read',
      query: SourceListQuerySchema,
      responses: { 200: { description: 'A page of sources', schema: SourceListSchema } },
      errors: ['svc.request.validation_failed', 'svc.agent.not_found'],
    },
    async ({ auth, query }) => ({ status: 200, body: await knowledge.list(auth.workspaceId, query) }),
  );
  router.add(
    {
      method: 'GET', path: '/v1/knowledge/sources/:sourceId', operationId: 'getSource', tags, params, summary: 'Get a source', scope: 'knowledge:read',
      responses: { 200: { description: 'The source', schema: SourceSchema } },
      errors: ['svc.knowledge.source_not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await knowledge.getSourceOrThrow(auth.workspaceId, params.sourceId) }),
  );
  router.add(
    {
      method: 'DELETE', path: '/v1/knowledge/sources/:sourceId', operationId: 'deleteSource', tags, params, summary: 'Delete a source; its chunks leave answers at once', scope: 'knowledge:write',
      responses: { 200: { description: 'Deleted', schema: SourceDeletedSchema } },
      errors: ['svc.knowledge.source_not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await knowledge.delete(auth.workspaceId, params.sourceId) }),
  );
  router.add(
    {
      method: 'POST', path: '/v1/knowledge/text', operationId: 'addTextSource', tags, summary: 'Ingest a text or Markdown document', scope: 'knowledge:write',
      body: TextAddSchema, invalid: 'svc.knowledge.source_invalid', bodyLimit: BODY_LIMITS.knowledgeText,
      responses: accepted, errors: [...addErrors],
    },
    async ({ auth, body }) => ({ status: 202, body: await knowledge.addText(auth.workspaceId, body) }),
  );
  router.add(
    {
      method: 'POST', path: '/v1/knowledge/urls', operationId: 'addUrlSource', tags, summary: 'Crawl a public web page, again every syncTtlMinutes', scope: 'knowledge:write',
      body: UrlAddSchema, invalid: 'svc.knowledge.source_invalid',
      responses: accepted, errors: [...addErrors, 'svc.knowledge.url_not_allowed'],
    },
    async ({ auth, body }) => ({ status: 202, body: await knowledge.addUrl(auth.workspaceId, body) }),
  );
  router.add(
    {
      method: 'POST', path: '/v1/knowledge/uploads', operationId: 'uploadSource', tags, summary: 'Ingest a file: text, Markdown, HTML, CSV, JSON or PDF', scope: 'knowledge:write',
      body: UploadAddSchema, bodyKind: 'multipart', invalid: 'svc.knowledge.source_invalid', bodyLimit: BODY_LIMITS.upload,
      responses: accepted, errors: [...addErrors, 'svc.knowledge.format_unsupported'],
    },
    async ({ auth, body }) => ({ status: 202, body: await knowledge.addUpload(auth.workspaceId, body) }),
  );
  router.add(
    {
      method: 'POST', path: '/v1/knowledge/claims', operationId: 'addClaimSource', tags, summary: 'Add a claim in Spanish and English', scope: 'knowledge:write',
      body: ClaimAddSchema, invalid: 'svc.knowledge.source_invalid',
      responses: accepted, errors: [...addErrors],
    },
    async ({ auth, body }) => ({ status: 202, body: await knowledge.addClaim(auth.workspaceId, body) }),
  );
  router.add(
    {
      method: 'GET', path: '/v1/knowledge/topics', operationId: 'listTopics', tags, summary: 'Topics of the pool, or of one agent, with source counts', scope: 'knowledge:read',
      query: TopicListQuerySchema,
      responses: { 200: { description: 'A page of topics, alphabetically', schema: TopicListSchema } },
      errors: ['svc.request.validation_failed', 'svc.agent.not_found'],
    },
    async ({ auth, query }) => ({ status: 200, body: await knowledge.listTopics(auth.workspaceId, query) }),
  );
  router.add(
    {
      method: 'POST', path: '/v1/knowledge/topics/merge', operationId: 'mergeTopics', tags, summary: 'Rewrite one topic as another on every source of the scope', scope: 'knowledge:write',
      body: TopicMergeSchema, invalid: 'svc.knowledge.topic_invalid',
      responses: { 200: { description: 'How many sources were retagged', schema: TopicMergedSchema } },
      errors: ['svc.knowledge.topic_invalid', 'svc.knowledge.topic_not_found', 'svc.agent.not_found', 'svc.request.invalid'],
    },
    async ({ auth, body }) => ({ status: 200, body: await knowledge.mergeTopics(auth.workspaceId, body) }),
  );
}
