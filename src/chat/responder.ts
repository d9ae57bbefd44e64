import { expectedAnswers } from './answer-types.js';
import { tokensOf, type ChatModel, type ChatReply, type ChatTurnInput } from './chat-model.js';
import type { Passage } from '../retrieval/retrieval.schema.js';
import type { Language } from '../text/language.js';
import { sentenceReader, type SentenceReader } from '../text/sentences.js';
import { withoutMailMarks } from '../text/mail-marks.js';
import { GREETING_WORDS, THANKING_WORDS } from '../text/search-words.js';
import { termSet } from '../text/terms.js';
import { accentedWords, fold } from '../text/words.js';

// A greeting, whole: the shared greeting words, and "good" and "there" ("good morning", "hi there").
const GREETINGS: ReadonlySet<string> = new Set([...GREETING_WORDS, 'good', 'there']);
/** A thank-you, whole: "Thanks!", "Thank you so much", "¡Muchas gracias!" (D-1066); one of `THANKING` at least. */
const THANKING: ReadonlySet<string> = new Set([...THANKING_WORDS, 'thx', 'ty']);
const THANKS: ReadonlySet<string> = new Set([...THANKING, ...'you so much very a lot many muchas mil muchisimas'.split(' ')]);

/** Passages scored below this are not used to answer. */
const MIN_PASSAGE_SCORE = 0.15;
/** At most this many sentences make a reply. */
const MAX_SENTENCES = 3;
/** A second sentence joins the best one when it scores at least this share of it... */
const SAME_PASSAGE = 0.8;
/** ...or this share when it comes from another passage. */
const OTHER_PASSAGE = 0.9;
/** Weight of a term that only the heading above a sentence carries: it names the section. */
const HEADING_WEIGHT = 1;
/** Weight of a sentence having the shape of the answer asked for (an address for "where"). */
const ANSWER_WEIGHT = 0.75;
/** Weight of a term that only the earlier questions of a follow-up carry. */
const CONTEXT_WEIGHT = 0.5;

interface Candidate {
  text: string;
  passage: Passage;
  passageRank: number;
  order: number;
  score: number;
}

function greeting(input: ChatTurnInput): string {
  const { name, identity } = input.agent;
  return input.lang === 'es'
    ? `¡Hola! Soy ${name}, el asistente de ${identity.businessName}. ¿En qué puedo ayudarte?`
    : `Hello! I'm ${name}, the assistant of ${identity.businessName}. How can I help you?`;
}

function fallback(input: ChatTurnInput): string {
  const business = input.agent.identity.businessName;
  return input.lang === 'es'
    ? `Lo siento, todavía no tengo información sobre eso. Puedes preguntarme otra cosa o contactar directamente con ${business}.`
    : `I'm sorry, I don't have information about that yet. You can ask me something else or contact ${business} directly.`;
}

function otherLanguageNote(lang: Language): string {
  return lang === 'es' ? 'Solo tengo esta información en inglés:' : 'I only have this information in Spanish:';
}

function welcome(input: ChatTurnInput): string {
  return input.lang === 'es' ? '¡De nada! ¿Puedo ayudarte en algo más?' : "You're welcome! Is there anything else I can help you with?";
}

/**
 * Whether the message is only words of `set`, perhaps with the agent's name ("Hi Ada!",
 * "Thanks, Ada", D-1066): at most four of them besides the name, one at least.
 */
function isOnly(message: string, set: ReadonlySet<string>, agentName: string): boolean {
  const name = new Set(accentedWords(agentName).map(fold));
  const list = accentedWords(message)
    .map(fold)
    .filter((w) => !name.has(w));
  return list.length > 0 && list.length <= 4 && list.every((w) => set.has(w));
}

/** Every sentence of the usable passages that holds a term of the question, scored. */
function score(
  input: ChatTurnInput,
  read: SentenceReader,
  weights: Map<string, number>,
  focus: Set<string>,
  shapes: RegExp[],
  needFocus: boolean,
): Candidate[] {
  const all: Candidate[] = [];
  input.passages.forEach((passage, passageRank) => {
    if (passage.score < MIN_PASSAGE_SCORE) return;
    read(passage.text, passage.lang).forEach(({ text, heading }, order) => {
      const st = termSet(text);
      let match = 0;
      let focusHits = 0;
      for (const t of st) {
        const w = weights.get(t);
        if (w === undefined) continue;
        match += w;
        if (focus.has(t)) focusHits++;
      }
      // The heading a sentence sits under names its section ("## Ruzafa bar").
      for (const t of termSet(heading)) {
        const w = weights.get(t);
        if (w === undefined || st.has(t)) continue;
        match += w * HEADING_WEIGHT;
        if (focus.has(t)) focusHits++;
      }
      // A sentence must hold a word of the message itself, unless the message has none.
      if (match === 0 || (needFocus && focus.size > 0 && focusHits === 0)) return;
      for (const shape of shapes) if (shape.test(text)) match += ANSWER_WEIGHT;
      const score = (match / Math.sqrt(1 + st.size / 8)) * passage.score;
      all.push({ text, passage, passageRank, order, score });
    });
  });
  return all;
}

/**
 * Picks the sentences that best answer the question: each sentence of each usable
 * passage is scored by the question's terms it or its section heading holds (terms that
 * only the earlier questions of a follow-up carry count half), plus one when it has the
 * shape of the answer asked for, divided by a gentle length penalty and multiplied by
 * its passage's score. The best few, kept in reading order, are the reply.
 */
export function extract(input: ChatTurnInput, read: SentenceReader): { sentences: Candidate[]; foreign: boolean } {
  const focus = termSet(input.message);
  const context = termSet(input.query);
  for (const t of focus) context.delete(t);
  const weights = new Map<string, number>();
  for (const t of context) weights.set(t, focus.size ? CONTEXT_WEIGHT : 1);
  for (const t of focus) weights.set(t, 1);
  if (!weights.size) return { sentences: [], foreign: false };
  const shapes = expectedAnswers(input.message);
  if (!shapes.length && input.query !== input.message) shapes.push(...expectedAnswers(input.query));

  let all = score(input, read, weights, focus, shapes, true);
  // A follow-up may ask about what the knowledge leaves out ("and on Sundays?" of hours
  // that name no Sunday): the sentences about the earlier question that have the shape
  // asked for (hours) are then the answer. A follow-up asking for no shape gets none.
  const asked = expectedAnswers(input.message);
  if (!all.length && context.size && focus.size && asked.length) {
    all = score(input, read, weights, focus, shapes, false).filter((c) => asked.some((shape) => shape.test(c.text)));
  }
  const own = all.filter((c) => c.passage.lang === input.lang);
  const pool = own.length ? own : all;
  pool.sort((a, b) => b.score - a.score || a.passageRank - b.passageRank || a.order - b.order);
  const best = pool[0];
  if (!best) return { sentences: [], foreign: false };
  // Keep close seconds only: a weak sentence dilutes a good answer, and one from another
  // passage must be nearly as good to join it.
  const chosen = pool.filter((c) => c.score >= best.score * (c.passage === best.passage ? SAME_PASSAGE : OTHER_PASSAGE)).slice(0, MAX_SENTENCES);
  chosen.sort((a, b) => a.passageRank - b.passageRank || a.order - b.order);
  return { sentences: chosen, foreign: !own.length };
}

/** The reply text and the sources it draws on. */
export function compose(input: ChatTurnInput, read: SentenceReader): { text: string; sourceIds: string[] } {
  // "Thanks!" sent from a phone is a thank-you still (D-1067).
  const message = withoutMailMarks(input.message);
  if (isOnly(message, GREETINGS, input.agent.name)) return { text: greeting(input), sourceIds: [] };
  if (isOnly(message, THANKS, input.agent.name) && accentedWords(message).some((w) => THANKING.has(fold(w)))) {
    return { text: welcome(input), sourceIds: [] };
  }
  const { sentences: chosen, foreign } = extract(input, read);
  if (!chosen.length) return { text: fallback(input), sourceIds: [] };
  const body = chosen.map((c) => c.text).join(' ');
  return {
    text: foreign ? `${otherLanguageNote(input.lang)} ${body}` : body,
    sourceIds: [...new Set(chosen.map((c) => c.passage.sourceId))],
  };
}

/**
 * The default model (decisions, D-101): deterministic and extractive. It answers with the sentences of the
 * retrieved passages that best answer the question, in the language of the message
 * where the knowledge has it, greets back a greeting, answers thanks, and says politely when it knows
 * nothing relevant. The same input always gives the same reply.
 */
export function createResponder(): ChatModel {
  return {
    id: 'svc-extractive-1',
    async reply(input, { signal }): Promise<ChatReply> {
      const { text, sourceIds } = compose(input, await sentenceReader());
      return { text, tokens: tokensOf(text, signal), sourceIds };
    },
  };
}
