import { idParam } from '../platform/openapi.js';
import type { Router } from '../platform/route.js';
import type { RetrievalService } from './retrieval.service.js';
import { QueryBodySchema, QueryResultSchema } from './retrieval.schema.js';

/** `POST /v1/agents/{id}/query`: the retrieval probe. */
export function registerRetrievalRoutes(router: Router, retrieval: RetrievalService): void {
  const tags = ['Agents'];
  router.add(
    {
      method: 'POST',
      path: '/v1/agents/:agentId/query',
      operationId: 'query',
      tags,
      scope: 'knowledge:read',
      params: { agentId: idParam('agent', 'agt') },
      summary: 'Retrieval probe: the passages the agent would answer from (costs no credit)',
      body: QueryBodySchema,
      responses: {
        200: {
          description:
            'Passages best first (BM25 over the chunks with Snowball stems; `score` says how much of the question each holds) ' +
            'and how each strategy found them. No passages when the agent has no ready knowledge, or cannot answer: the ' +
            'question names a subject the knowledge never mentions. Asked in the second or two after the last source of a bilingual ' +
            "workspace settled, it waits for the workspace's lexicon being learned (at most the emulator's `lexiconWaitMs`), so that it " +
            'answers as it will afterwards.',
          schema: QueryResultSchema,
        },
      },
      errors: ['svc.request.validation_failed', 'svc.request.invalid', 'svc.agent.not_found'],
    },
    async ({ auth, params, body }) => ({ status: 200, body: await retrieval.query(auth.workspaceId, params.agentId, body) }),
  );
}
