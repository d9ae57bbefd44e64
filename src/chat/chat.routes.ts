import type { Context } from 'hono';
import type { AppEnv } from '../platform/context.js';
import type { InFlight } from '../platform/in-flight.js';
import type { Router } from '../platform/route.js';
import type { ChatService } from './chat.service.js';
import { streamTurn } from './chat-stream.js';
import { idParam } from '../platform/openapi.js';
import { CHAT_STREAM, ChatAnswerSchema, ChatBodySchema } from './chat.schema.js';

/**
 * True when the client asks for `text/event-stream` (with a non-zero quality) in
 * `Accept`; any other answer is JSON.
 */
export function wantsStream(c: Context<AppEnv>): boolean {
  const accept = c.req.header('accept');
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.trim().toLowerCase().split(';');
    if (type.trim() !== 'text/event-stream') return false;
    const q = params.map((p) => p.trim().split('=')).find(([k]) => k === 'q');
    return !q || Number(q[1]) > 0;
  });
}

/** `POST /v1/agents/{id}/chat` (JSON and streamed; decisions, D-102). */
export function registerChatRoutes(router: Router, deps: { chat: ChatService; log: (message: string, error?: unknown) => void; requests: InFlight }): void {
  const tags = ['Agents'];
  router.add(
    {
      method: 'POST',
      path: '/v1/agents/:agentId/chat',
      operationId: 'chat',
      tags,
      scope: 'chat:write',
      params: { agentId: idParam('agent', 'agt') },
      summary: 'A chat turn (one credit); `Accept: text/event-stream` streams it as events start, token..., done or error',
      body: ChatBodySchema,
      // A stream cannot be replayed: only the JSON turn honours Idempotency-Key.
      idempotent: (c) => !wantsStream(c),
      responses: {
        200: { description: 'The chat answer (JSON), or the event stream', schema: ChatAnswerSchema, stream: CHAT_STREAM },
      },
      errors: [
        'svc.request.validation_failed',
        'svc.request.invalid',
        'svc.chat.agent_scope_conflict',
        'svc.agent.not_found',
        'svc.resource.not_found',
        'svc.usage.quota_exhausted',
        'svc.idempotency.conflict',
        'svc.service.unavailable',
        // A chat model (a port: it may be the caller's own) that fails answers 500.
        'svc.internal.error',
      ],
    },
    async ({ c, auth, params, body }) => {
      if (!wantsStream(c)) {
        // A stop ends the turn as a client gone would (503, nothing spent).
        const answer = await deps.requests.untilStopped(c.req.raw.signal, (signal) => deps.chat.answer(auth.workspaceId, params.agentId, body, signal));
        return { status: 200, body: answer };
      }
      const turn = await deps.chat.openStream(auth.workspaceId, params.agentId, body);
      return streamTurn(c, turn, deps.log, deps.requests);
    },
  );
}
