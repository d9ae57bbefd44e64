import { AS_TEXT, loadEncoding } from '../knowledge/pipeline/tokens.js';
import type { Passage } from '../retrieval/retrieval.schema.js';
import type { Language } from '../text/language.js';

export interface ChatHistoryTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** Everything a model gets to answer one turn. */
export interface ChatTurnInput {
  agent: { id: string; name: string; identity: { businessName: string; description: string } };
  /** The user's message, as sent. */
  message: string;
  /** The language of the message: the reply speaks it. */
  lang: Language;
  /** Earlier turns of the conversation, oldest first. */
  history: ChatHistoryTurn[];
  /**
   * The question retrieval answered: the message itself, or, for a follow-up ("and on
   * Sundays?"), the earlier question it continues followed by the message.
   */
  query: string;
  /** Retrieved passages, best first; empty when the agent knows nothing relevant. */
  passages: Passage[];
}

export interface ChatReply {
  /** The reply, one token at a time; joined they are the whole reply. */
  tokens: AsyncIterable<string>;
  /**
   * The whole reply, when the model has it at once: a JSON turn takes it and never reads
   * `tokens` (joined, they must equal it). A streamed turn always reads `tokens`.
   */
  text?: string;
  /**
   * The sources the reply draws on, in order, for the `sources` component. When absent,
   * every passage given counts as used.
   */
  sourceIds?: string[];
}

/**
 * What answers a chat turn. The default is the deterministic extractive responder; a
 * user may plug a real model (see `openAiChatModel`) through the `chatModel` option.
 */
export interface ChatModel {
  /** Part of the `cached` key: answers of another model are never reused. */
  readonly id: string;
  /** Starts a reply. The model should stop producing tokens once `signal` aborts; a turn stops waiting for it then anyway (D-1206). */
  reply(input: ChatTurnInput, options: { signal: AbortSignal }): ChatReply | Promise<ChatReply>;
}

/**
 * A text cut into model tokens (the `o200k_base` encoding), each decoded to its text;
 * a character that spans several tokens comes out whole in one piece, so joined the
 * pieces are exactly `text`.
 */
export async function tokenize(text: string): Promise<string[]> {
  // The encoding ingestion counts with, loaded on first use, once per thread; a reply
  // quoting "<|endoftext|>" holds text, not a control token (D-1075).
  const { decodeGenerator, encode } = await loadEncoding();
  const out: string[] = [];
  for (const piece of decodeGenerator(encode(text, AS_TEXT))) if (piece) out.push(piece);
  return out;
}

/**
 * `text` cut into tokens only when they are read (`tokenize`): a JSON turn, which takes
 * the reply whole, never loads the encoding on the thread that serves requests (D-1084).
 */
export async function* tokensOf(text: string, signal: AbortSignal): AsyncGenerator<string> {
  yield* fromTokens(await tokenize(text), signal);
}

/** Yields `tokens` one by one, stopping as soon as `signal` aborts. */
export async function* fromTokens(tokens: Iterable<string>, signal: AbortSignal): AsyncGenerator<string> {
  for (const token of tokens) {
    if (signal.aborted) return;
    yield token;
  }
}
