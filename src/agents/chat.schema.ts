import * as v from 'valibot';
import { TopicSchema } from '../platform/topic-tag.js';
import { clientText } from '../platform/validation.js';

const Topics = v.pipe(
  v.array(TopicSchema),
  v.transform((list) => [...new Set(list)]),
);

export const QueryBodySchema = v.strictObject({
  query: v.pipe(clientText({ min: 1, max: 2000 }), v.check((s) => s.trim().length > 0, 'must not be blank')),
  topics: v.optional(Topics, []),
  limit: v.optional(v.pipe(v.number(), v.integer('must be an integer from 1 to 20'), v.minValue(1, 'must be an integer from 1 to 20'), v.maxValue(20, 'must be an integer from 1 to 20')), 5),
});

export type QueryBody = v.InferOutput<typeof QueryBodySchema>;

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

export const PassageSchema = v.object({
  sourceId: v.string(),
  title: v.string(),
  text: v.string(),
  score: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  topics: v.array(v.string()),
  lang: v.picklist(['es', 'en']),
  url: v.optional(v.string()),
});

export const QueryResultSchema = v.object({
  passages: v.array(PassageSchema),
  strategies: v.object({ topics: v.number(), vector: v.number() }),
});

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
