import type { Kysely, Transaction } from 'kysely';
import { lockAgentRow } from '../db/row-locks.js';
import type { Database } from '../db/schema/index.js';
import type { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import type { Clock } from '../platform/clock.js';
import { sha256Hex } from '../platform/crypto.js';
import type { IdGenerator } from '../platform/ids.js';
import { ServiceError } from '../platform/service-error.js';
import { abortable, untilAborted } from '../platform/abortable.js';
import type { Passage, QueryResult, SearchInput } from '../retrieval/retrieval.schema.js';
import { detectMessageLanguage } from '../text/detect-language.js';
import type { Language } from '../text/language.js';
import { accentedWords, fold } from '../text/words.js';
import { tokenize, type ChatHistoryTurn, type ChatModel, type ChatReply, type ChatTurnInput } from './chat-model.js';
import type { ChatAnswer, ChatBody, SourcesComponent } from './chat.schema.js';
import { ConversationStore, type StoredAnswer } from './conversations.js';
import { resolveQuery } from './follow-up.js';
import { createResponder } from './responder.js';

/** The agent a turn answers as. */
type ChatAgent = ChatTurnInput['agent'];

/** What chat needs of agents: the one that answers (else `404 svc.agent.not_found`). */
export interface AgentLookup {
  getAgentOrThrow(workspaceId: string, agentId: string): Promise<ChatAgent>;
}

/** What chat needs of workspaces: message credits to read and spend (the workspaces part). */
export interface Credits {
  messages(workspaceId: string): Promise<{ remaining: number }>;
  /** Spends one credit unless that would leave fewer than `keep`; false when it cannot. */
  spendCredit(workspaceId: string, db: Transaction<Database>, keep?: number): Promise<boolean>;
}

/** What chat needs of retrieval: the passages a turn reads. */
export interface PassageSearch {
  search(workspaceId: string, agentId: string, input: SearchInput): Promise<QueryResult>;
}

/** What a chat service is built from. */
export interface ChatDeps {
  db: Kysely<Database>;
  clock: Clock;
  ids: IdGenerator;
  agents: AgentLookup;
  credits: Credits;
  retrieval: PassageSearch;
  /** What an answer depends on besides the question: the scope's knowledge (and the workspace's lexicon, D-792). */
  knowledge: Pick<KnowledgeIndex, 'version'>;
  model: ChatModel;
}

/** A streamed turn that was accepted: its credit is spent and its question recorded. */
export interface StreamedTurn {
  conversationId: string;
  /** The reply's tokens; stops when `signal` aborts. */
  tokens(signal: AbortSignal): AsyncIterable<string>;
  /** Records the reply (every token was sent) and answers the whole chat answer. */
  finish(): Promise<ChatAnswer>;
  /**
   * The turn failed after it started: the credit comes back and the question goes; the
   * conversation, announced at the start, stays for the retry (D-1090).
   */
  fail(): Promise<void>;
}

interface PreparedTurn {
  workspaceId: string;
  agent: ChatAgent;
  conversationId: string | undefined;
  message: string;
  lang: Language;
  history: ChatHistoryTurn[];
  query: string;
  cacheKey: string;
  knowledgeVersion: string;
  stored: StoredAnswer | undefined;
  passages: Passage[];
}

/** Passages a turn reads. */
const TURN_PASSAGES = 5;

/** How a turn may spend: `reserve` credits stay unspent (the owner's share, for hosted pages' visitors). */
export interface TurnOptions {
  reserve?: number | undefined;
}

/**
 * What a reply reads of the agent, exactly as written: the responder its name and
 * business, a plugged model its description too. Part of the `cached` key (D-1091).
 */
function agentPrint(agent: ChatAgent): string {
  return JSON.stringify([agent.name, agent.identity.businessName, agent.identity.description]);
}

/** A message's form for "the same message" comparisons (the `cached` key): folded, words only. */
function normaliseMessage(text: string): string {
  return accentedWords(text).map(fold).join(' ');
}

const quotaExhausted = () => new ServiceError('svc.usage.quota_exhausted');

/**
 * The chat turn: one credit per turn, conversations that continue, `cached` answers,
 * and a `ChatModel` that writes the reply (the deterministic responder by default).
 */
export class ChatService {
  readonly conversations: ConversationStore;
  /**
   * Answers the turns retrieval found nothing for, whatever model is plugged: a
   * greeting back, or the polite "I cannot answer that yet" citing nothing. A model
   * given no passages may still answer from its own memory; this one cannot, and costs
   * no call (decisions, D-303).
   */
  readonly #nothingFound = createResponder();

  constructor(private readonly deps: ChatDeps) {
    this.conversations = new ConversationStore(deps);
  }

  /**
   * A JSON turn. The reply is written first and the turn recorded after, in one
   * transaction that also spends the credit: a turn that fails spends nothing.
   */
  async answer(workspaceId: string, agentId: string, body: ChatBody, signal?: AbortSignal): Promise<ChatAnswer> {
    const turn = await this.#prepare(workspaceId, agentId, body);
    const produced = turn.stored ?? (await this.#generate(turn, signal ?? new AbortController().signal));
    return this.deps.db.transaction().execute(async (trx) => {
      await this.#spend(trx, workspaceId);
      await this.#lockAgentOrThrow(trx, workspaceId, agentId);
      const conversationId = turn.conversationId
        ? (await this.conversations.getConversationOrThrow(workspaceId, agentId, turn.conversationId, trx)).id
        : await this.conversations.create(trx, workspaceId, agentId);
      await this.#record(trx, turn, conversationId, produced);
      return { conversationId, reply: produced.reply, components: produced.components as SourcesComponent[], cached: turn.stored !== undefined };
    });
  }

  /**
   * Opens a streamed turn. Everything that can refuse it (the agent, the conversation,
   * credits) happens here, before the first byte; the credit is spent and the question
   * recorded before it answers. `reserve` credits are never spent by this turn.
   */
  async openStream(workspaceId: string, agentId: string, body: ChatBody, options: TurnOptions = {}): Promise<StreamedTurn> {
    const turn = await this.#prepare(workspaceId, agentId, body, options);
    const opened = await this.deps.db.transaction().execute(async (trx) => {
      await this.#spend(trx, workspaceId, options);
      await this.#lockAgentOrThrow(trx, workspaceId, agentId);
      const conversationId = turn.conversationId
        ? (await this.conversations.getConversationOrThrow(workspaceId, agentId, turn.conversationId, trx)).id
        : await this.conversations.create(trx, workspaceId, agentId);
      const questionId = await this.conversations.append(trx, workspaceId, agentId, conversationId, { role: 'user', content: turn.message, lang: turn.lang });
      return { conversationId, questionId };
    });
    let reply = '';
    let components: SourcesComponent[] = (turn.stored?.components as SourcesComponent[] | undefined) ?? [];
    const source = async (signal: AbortSignal): Promise<Iterable<string> | AsyncIterable<string>> =>
      turn.stored ? tokenize(turn.stored.reply) : (await this.#startModel(turn, signal, (c) => (components = c))).tokens;
    return {
      conversationId: opened.conversationId,
      async *tokens(signal) {
        for await (const token of await source(signal)) {
          if (signal.aborted) return;
          reply += token;
          yield token;
        }
      },
      finish: () =>
        this.deps.db.transaction().execute(async (trx) => {
          // An agent deleted while it answered took the conversation with it, and a state
          // imported meanwhile may hold neither: the turn fails (its credit given back)
          // rather than record a reply in no conversation.
          await this.#lockAgentOrThrow(trx, workspaceId, agentId);
          await this.conversations.getConversationOrThrow(workspaceId, agentId, opened.conversationId, trx);
          await this.#recordAnswer(trx, turn, opened.conversationId, { reply, components });
          return { conversationId: opened.conversationId, reply, components, cached: turn.stored !== undefined };
        }),
      fail: () =>
        this.deps.db.transaction().execute(async (trx) => {
          // The workspace's row before its other rows, as its deletion takes them (D-1127).
          await this.#refund(trx, workspaceId);
          await this.conversations.removeMessage(trx, opened.questionId);
        }),
    };
  }

  async #prepare(workspaceId: string, agentId: string, body: ChatBody, options: TurnOptions = {}): Promise<PreparedTurn> {
    if (body.agentId !== undefined) throw new ServiceError('svc.chat.agent_scope_conflict');
    // The model gets what the `cached` key covers, and nothing else of the agent.
    const { id, name, identity } = await this.deps.agents.getAgentOrThrow(workspaceId, agentId);
    const agent: ChatAgent = { id, name, identity: { businessName: identity.businessName, description: identity.description } };
    const conversation = body.conversationId ? await this.conversations.getConversationOrThrow(workspaceId, agentId, body.conversationId) : undefined;
    // Checked again when spending; refusing here saves the work of an answer nobody may have.
    if ((await this.deps.credits.messages(workspaceId)).remaining <= (options.reserve ?? 0)) throw quotaExhausted();
    const history = conversation ? await this.conversations.history(conversation.id) : [];
    const lastQuestion = [...history].reverse().find((t) => t.role === 'user');
    const lang = detectMessageLanguage(body.message, lastQuestion ? detectMessageLanguage(lastQuestion.content) : 'en');
    const { query, context } = resolveQuery(body.message, history);
    const cacheKey = sha256Hex(`${this.deps.model.id}\n${agentPrint(agent)}\n${normaliseMessage(body.message)}\n${normaliseMessage(context)}`);
    const knowledgeVersion = await this.deps.knowledge.version(workspaceId, agentId);
    const stored = await this.conversations.findAnswer(workspaceId, agentId, cacheKey, knowledgeVersion);
    const passages = stored ? [] : (await this.deps.retrieval.search(workspaceId, agentId, { query, topics: [], limit: TURN_PASSAGES })).passages;
    return { workspaceId, agent, conversationId: conversation?.id, message: body.message, lang, history, query, cacheKey, knowledgeVersion, stored, passages };
  }

  async #startModel(turn: PreparedTurn, signal: AbortSignal, onSources: (components: SourcesComponent[]) => void): Promise<ChatReply> {
    const input: ChatTurnInput = {
      agent: turn.agent,
      message: turn.message,
      lang: turn.lang,
      history: turn.history,
      query: turn.query,
      passages: turn.passages,
    };
    const model = turn.passages.length ? this.deps.model : this.#nothingFound;
    // A model of the user's own may ignore its signal: the turn stops waiting for it
    // anyway, so that a stop or a client gone is not held up by it.
    const reply = await untilAborted(model.reply(input, { signal }), signal);
    onSources(sourcesComponents(turn.passages, reply.sourceIds));
    return { ...reply, tokens: abortable(reply.tokens, signal) };
  }

  async #generate(turn: PreparedTurn, signal: AbortSignal): Promise<StoredAnswer> {
    let components: SourcesComponent[] = [];
    const cancelled = () => new ServiceError('svc.service.unavailable', { detail: { en: 'The turn was cancelled.', es: 'El turno se canceló.' } });
    let reply: string;
    try {
      const started = await this.#startModel(turn, signal, (c) => (components = c));
      // A model that has the reply at once hands it over whole: no tokens to cut (D-1084).
      reply = started.text ?? '';
      if (started.text === undefined) for await (const token of started.tokens) reply += token;
    } catch (error) {
      // Stopped: whatever the model did about it (returned, threw its own abort error, or nothing).
      if (signal.aborted) throw cancelled();
      throw error;
    }
    if (signal.aborted) throw cancelled();
    return { reply, components };
  }

  /**
   * The agent's row, locked before the turn records anything (D-1132): the agent was read
   * before the model ran, and may have been deleted since, with its conversations.
   */
  async #lockAgentOrThrow(trx: Transaction<Database>, workspaceId: string, agentId: string): Promise<void> {
    if (!(await lockAgentRow(trx, workspaceId, agentId))) throw new ServiceError('svc.agent.not_found');
  }

  async #spend(trx: Transaction<Database>, workspaceId: string, options: TurnOptions = {}): Promise<void> {
    if (!(await this.deps.credits.spendCredit(workspaceId, trx, options.reserve))) throw quotaExhausted();
  }

  // The workspaces part spends credits; giving one back is the one write chat makes to
  // its table, for a stream that failed after it had spent.
  async #refund(trx: Transaction<Database>, workspaceId: string): Promise<void> {
    await trx
      .updateTable('workspaces')
      .set((eb) => ({ messages_used: eb('messages_used', '-', 1) }))
      .where('id', '=', workspaceId)
      .where('messages_used', '>', 0)
      .execute();
  }

  async #record(trx: Transaction<Database>, turn: PreparedTurn, conversationId: string, answer: StoredAnswer): Promise<void> {
    await this.conversations.append(trx, turn.workspaceId, turn.agent.id, conversationId, { role: 'user', content: turn.message, lang: turn.lang });
    await this.#recordAnswer(trx, turn, conversationId, answer);
  }

  async #recordAnswer(trx: Transaction<Database>, turn: PreparedTurn, conversationId: string, answer: StoredAnswer): Promise<void> {
    await this.conversations.append(trx, turn.workspaceId, turn.agent.id, conversationId, {
      role: 'assistant',
      content: answer.reply,
      lang: turn.lang,
      cacheKey: turn.cacheKey,
      knowledgeVersion: turn.knowledgeVersion,
      components: answer.components,
    });
  }
}

/** The `sources` component of the passages a reply used (all of them unless told). */
export function sourcesComponents(passages: Passage[], sourceIds?: string[]): SourcesComponent[] {
  const wanted = sourceIds ?? [...new Set(passages.map((p) => p.sourceId))];
  const items: SourcesComponent['items'] = [];
  for (const id of wanted) {
    const passage = passages.find((p) => p.sourceId === id);
    if (passage) items.push({ sourceId: id, title: passage.title, ...(passage.url !== undefined && { url: passage.url }) });
  }
  return items.length ? [{ type: 'sources', items }] : [];
}
