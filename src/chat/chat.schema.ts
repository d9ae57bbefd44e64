import * as v from 'valibot';
import { clientText } from '../platform/validation.js';

/**
 * The chat body. `agentId` is declared so that it reaches the service, which refuses it
 * with `svc.chat.agent_scope_conflict`: the path already names who answers.
 */
export const ChatBodySchema = v.strictObject({
  message: v.pipe(clientText({ min: 1, max: 4000 }), v.check((s) => s.trim().length > 0, 'must not be blank')),
  conversationId: v.optional(clientText({ min: 1, max: 100, minMessage: 'must not be empty', message: 'must be at most 100 characters' })),
  agentId: v.optional(v.pipe(v.unknown(), v.description('Never accepted here: the path names the agent (400 svc.chat.agent_scope_conflict).'))),
});

export type ChatBody = v.InferOutput<typeof ChatBodySchema>;

export const SourcesComponentSchema = v.object({
  type: v.literal('sources'),
  items: v.array(v.object({ sourceId: v.string(), title: v.string(), url: v.optional(v.string()) })),
});

export const ChatAnswerSchema = v.object({
  conversationId: v.string(),
  reply: v.string(),
  components: v.array(SourcesComponentSchema),
  cached: v.boolean(),
});

export type SourcesComponent = v.InferOutput<typeof SourcesComponentSchema>;

/** The chat answer of API.md. */
export type ChatAnswer = v.InferOutput<typeof ChatAnswerSchema>;
