import type { Kysely, Transaction } from 'kysely';
import type { ConversationTable } from '../db/schema/agents.js';
import type { Database, Db } from '../db/schema/index.js';
import type { Clock } from '../platform/clock.js';
import type { IdGenerator } from '../platform/ids.js';
import { ServiceError } from '../platform/service-error.js';
import { storedJson } from '../platform/stored.js';
import { iso } from '../platform/time.js';
import { StoredComponentsSchema } from './chat.schema.js';
import type { ChatHistoryTurn } from './chat-model.js';
import type { Language } from '../text/language.js';

export interface StoredAnswer {
  reply: string;
  components: unknown[];
}

export interface NewMessage {
  role: 'user' | 'assistant';
  content: string;
  lang: Language;
  cacheKey?: string;
  knowledgeVersion?: string;
  components?: unknown[];
}

/** How many earlier messages a turn sees. */
const HISTORY = 20;

/**
 * Conversations and their messages. A conversation belongs to one agent; its messages
 * are kept in order (ids are monotonic), and an assistant message remembers what made
 * it (`cache_key`, knowledge version) so that the same question can be answered again.
 */
export class ConversationStore {
  constructor(private readonly deps: { db: Kysely<Database>; clock: Clock; ids: IdGenerator }) {}

  async getConversation(workspaceId: string, conversationId: string, db: Db = this.deps.db): Promise<ConversationTable | undefined> {
    return db.selectFrom('conversations').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', conversationId).executeTakeFirst();
  }

  /**
   * The conversation, which must belong to `agentId`: an unknown conversation and one of
   * another agent are the same `404 svc.resource.not_found`.
   */
  async getConversationOrThrow(workspaceId: string, agentId: string, conversationId: string, db: Db = this.deps.db): Promise<ConversationTable> {
    const conversation = await this.getConversation(workspaceId, conversationId, db);
    if (!conversation || conversation.agent_id !== agentId) {
      throw new ServiceError('svc.resource.not_found', {
        detail: { en: 'No such conversation for this agent.', es: 'No existe esa conversación para este agente.' },
      });
    }
    return conversation;
  }

  /** The last messages of a conversation, oldest first. */
  async history(conversationId: string, db: Db = this.deps.db): Promise<ChatHistoryTurn[]> {
    const rows = await db
      .selectFrom('chat_messages')
      .select(['role', 'content'])
      .where('conversation_id', '=', conversationId)
      .orderBy('id', 'desc')
      .limit(HISTORY)
      .execute();
    return rows.reverse().map((r) => ({ role: r.role === 'assistant' ? 'assistant' : 'user', content: r.content }));
  }

  /** An earlier answer of the agent to the same question on the same knowledge, if any. */
  async findAnswer(workspaceId: string, agentId: string, cacheKey: string, knowledgeVersion: string): Promise<StoredAnswer | undefined> {
    const row = await this.deps.db
      .selectFrom('chat_messages')
      .select(['id', 'content', 'components'])
      .where('workspace_id', '=', workspaceId)
      .where('agent_id', '=', agentId)
      .where('cache_key', '=', cacheKey)
      .where('knowledge_version', '=', knowledgeVersion)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return (
      row && {
        reply: row.content,
        components:
          row.components === null ? [] : storedJson(StoredComponentsSchema, row.components, { table: 'chat_messages', row: row.id, column: 'components' }),
      }
    );
  }

  /** Starts a conversation with `agentId`; answers its id. */
  async create(trx: Transaction<Database>, workspaceId: string, agentId: string): Promise<string> {
    const now = iso(this.deps.clock.now());
    const id = this.deps.ids.next('cnv');
    await trx.insertInto('conversations').values({ id, workspace_id: workspaceId, agent_id: agentId, created_at: now, updated_at: now }).execute();
    return id;
  }

  async append(trx: Transaction<Database>, workspaceId: string, agentId: string, conversationId: string, message: NewMessage): Promise<string> {
    const now = iso(this.deps.clock.now());
    const id = this.deps.ids.next('msg');
    await trx
      .insertInto('chat_messages')
      .values({
        id,
        workspace_id: workspaceId,
        conversation_id: conversationId,
        agent_id: agentId,
        role: message.role,
        content: message.content,
        lang: message.lang,
        cache_key: message.cacheKey ?? null,
        knowledge_version: message.knowledgeVersion ?? null,
        components: message.components ? JSON.stringify(message.components) : null,
        created_at: now,
      })
      .execute();
    await trx.updateTable('conversations').set({ updated_at: now }).where('id', '=', conversationId).execute();
    return id;
  }

  /**
   * Removes one message. The conversation stays, even empty: its id was announced (a
   * stream's `start`), and a client retries with it (D-1090).
   */
  async removeMessage(trx: Transaction<Database>, messageId: string): Promise<void> {
    await trx.deleteFrom('chat_messages').where('id', '=', messageId).execute();
  }

  /** Deletes every conversation of an agent (the agent is being deleted). */
  async deleteForAgent(trx: Transaction<Database>, workspaceId: string, agentId: string): Promise<void> {
    await trx.deleteFrom('chat_messages').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).execute();
    await trx.deleteFrom('conversations').where('workspace_id', '=', workspaceId).where('agent_id', '=', agentId).execute();
  }
}
