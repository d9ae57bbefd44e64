/** Tables of the chat turn (see ./core.ts for the column conventions). */
export interface ConversationTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  created_at: string;
  updated_at: string;
}

export interface ChatMessageTable {
  id: string;
  workspace_id: string;
  conversation_id: string;
  agent_id: string;
  /** `user` or `assistant`. */
  role: string;
  content: string;
  /** `es` or `en`: the language of the turn. */
  lang: string;
  /** Assistant turns: what makes two turns "the same" for `cached` (hash), else null. */
  cache_key: string | null;
  /** Assistant turns: the knowledge version the answer was built from, else null. */
  knowledge_version: string | null;
  /** Assistant turns: JSON array of the answer's `components`, else null. */
  components: string | null;
  created_at: string;
}

export interface AgentChatTables {
  conversations: ConversationTable;
  chat_messages: ChatMessageTable;
}
