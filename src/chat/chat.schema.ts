import * as v from 'valibot';
import { named } from '../platform/named-schema.js';
import type { EventStreamDoc } from '../platform/openapi.js';
import { ProblemSchema } from '../platform/problem-schema.js';
import { clientText, neverAccepted, notBlank } from '../platform/validation.js';

/**
 * The chat body. `agentId` is declared so that it reaches the service, which refuses it
 * with `svc.chat.agent_scope_conflict`: the path already names who answers.
 */
export const ChatBodySchema = named(
  'ChatRequest',
  v.strictObject({
    message: v.pipe(clientText({ min: 1, max: 4000 }), notBlank()),
    conversationId: v.optional(clientText({ min: 1, max: 100, minMessage: 'must not be empty', message: 'must be at most 100 characters' })),
    agentId: v.optional(neverAccepted('Never accepted here: the path names the agent (400 svc.chat.agent_scope_conflict).')),
  }),
);

export type ChatBody = v.InferOutput<typeof ChatBodySchema>;

export const SourcesComponentSchema = named(
  'SourcesComponent',
  v.object({
    type: v.literal('sources'),
    items: v.array(v.object({ sourceId: v.string(), title: v.string(), url: v.optional(v.string()) })),
  }),
);

export const ChatAnswerSchema = named(
  'ChatAnswer',
  v.object({
    conversationId: v.string(),
    reply: v.string(),
    components: v.array(SourcesComponentSchema),
    cached: v.boolean(),
  }),
);

export type SourcesComponent = v.InferOutput<typeof SourcesComponentSchema>;

/** The chat answer of API.md. */
export type ChatAnswer = v.InferOutput<typeof ChatAnswerSchema>;

export const ChatStartedSchema = named('ChatStarted', v.object({ conversationId: v.string() }));
export const ChatTokenSchema = named('ChatToken', v.object({ text: v.string() }));

/** The streamed chat turn (CONTRACT, Agents), as the OpenAPI description declares it. */
export const CHAT_STREAM: EventStreamDoc = {
  name: 'ChatEvent',
  description: [
    'Server-sent events, sent when `Accept` asks for `text/event-stream`. Each event is an `event:` line, one `data:` line of JSON and a blank line:',
    '',
    '    stream = start *token ( done / error )',
    '',
    '- `start`: `ChatStarted` `{ conversationId }`, first.',
    '- `token`: `ChatToken` `{ text }`, one per token; the texts joined are the reply.',
    '- `done`: `ChatAnswer`, the whole answer, last.',
    '- `error`: `Problem`, a failure after the start (the turn is undone; the conversation `start` named stays, for a retry), last.',
    '',
    'What can be refused before the first byte (auth, scope, validation, an unknown agent or conversation, credits) is a problem document with its status instead. A client that disconnects stops the turn.',
  ].join('\n'),
  events: { start: ChatStartedSchema, token: ChatTokenSchema, done: ChatAnswerSchema, error: ProblemSchema },
};

/**
 * `chat_messages.components` as the service writes it: the answer's source lists, each
 * item naming a source by id, with its title and (URL sources) an http(s) URL.
 */
export const StoredComponentsSchema = v.array(
  v.strictObject({
    type: v.literal('sources'),
    items: v.array(
      v.strictObject({
        sourceId: clientText({ min: 1, max: 100 }),
        title: clientText({ min: 1, max: 1000 }),
        url: v.optional(
          v.pipe(
            clientText({ max: 2048 }),
            v.check((u) => URL.canParse(u) && ['http:', 'https:'].includes(new URL(u).protocol), 'must be an http or https URL'),
          ),
        ),
      }),
    ),
  }),
);
