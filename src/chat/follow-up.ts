import type { ChatHistoryTurn } from './chat-model.js';
import { terms } from '../text/terms.js';
import { accentedWords, fold } from '../text/words.js';

const OPENERS = [
  'and',
  'also',
  'what about',
  'how about',
  'then',
  'so',
  'and what',
  'what else',
  'y',
  'tambien',
  'entonces',
  'y que',
  'que tal',
  'ademas',
  'y si',
  'y el',
  'y la',
  'y los',
  'y las',
];

const ANAPHORA = new Set([
  'it',
  'its',
  'they',
  'them',
  'their',
  'that',
  'those',
  'this',
  'these',
  'there',
  'one',
  'ones',
  'eso',
  'esa',
  'ese',
  'esos',
  'esas',
  'esto',
  'ello',
  'ahi',
  'alli',
  'alla',
]);

/** How many earlier user messages a follow-up may reach back to. */
const MAX_CONTEXT = 3;

/**
 * Whether a message continues the previous question rather than asking a new one: it
 * opens with a connective ("and...", "y..."), points back ("its phone", "eso"), or
 * carries too few content words to stand alone.
 */
export function isFollowUp(message: string): boolean {
  const folded = accentedWords(message).map(fold);
  if (folded.length === 0) return false;
  const head = folded.slice(0, 2).join(' ');
  if (OPENERS.some((o) => head === o || head.startsWith(`${o} `) || folded[0] === o)) return true;
  if (folded.some((w) => ANAPHORA.has(w))) return true;
  return terms(message).length <= 1;
}

export interface ResolvedQuery {
  /** What retrieval searches for. */
  query: string;
  /** The earlier questions the message was read with, oldest first ('' when none). */
  context: string;
}

/**
 * The question a message asks in its conversation (decisions, D-099). A follow-up is read together with
 * the earlier questions back to the last one that stood alone; any other message is
 * read alone.
 */
export function resolveQuery(message: string, history: ChatHistoryTurn[]): ResolvedQuery {
  if (!isFollowUp(message)) return { query: message, context: '' };
  const earlier: string[] = [];
  for (let i = history.length - 1; i >= 0 && earlier.length < MAX_CONTEXT; i--) {
    const turn = history[i]!;
    if (turn.role !== 'user') continue;
    earlier.unshift(turn.content);
    if (!isFollowUp(turn.content)) break;
  }
  if (!earlier.length) return { query: message, context: '' };
  const context = earlier.join('\n');
  return { query: `${context}\n${message}`, context };
}
