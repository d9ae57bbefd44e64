/**
 * Issue 25, refusal round (D-910): the signals a refusal rule can read, per question of
 * every corpus whose chunks `npm run bench -- relevance` captured (`BENCH_RELEVANCE_CHUNKS`),
 * with the questions read from `corpora/*.json` (so questions added since the capture
 * count). For each word of a question the scope never uses: how frequent it is in
 * general language (the zxcvbn-ts OpenSubtitles lists, `BENCH_COMMON_DIR`), whether it
 * is an inflected form, holds a digit, is written as a name.
 *
 *   BENCH_RELEVANCE_CHUNKS=/tmp/rel BENCH_COMMON_DIR=/tmp/zx node --import tsx bench/relevance/experiments/refusal-signals.ts
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { chunkTerms } from '../../../src/knowledge/chunk-terms.js';
import { LexicalIndex } from '../../../src/retrieval/lexical-index.js';
import { questionTerms } from '../../../src/retrieval/question-terms.js';
import { isEverydayWord, isInflectedForm, type Evidence } from '../../../src/retrieval/confidence.js';
import { analyzeChunk, hasHeading, languageBalance, queryWords, snowballStem } from '../../../src/text/analyze.js';
import { isQuestionWord } from '../../../src/text/search-words.js';
import { fold } from '../../../src/text/words.js';
import type { CapturedChunk } from '../evaluate.js';
import { distinctSections, rankOf, type Question } from '../metrics.js';
import { capturedCorpora } from './captures.js';

const DIR = process.env.BENCH_RELEVANCE_CHUNKS ?? '/tmp/rel';
const COMMON_DIR = process.env.BENCH_COMMON_DIR;

export interface UnknownWord {
  word: string;
  /** Rank in general language (1 = most frequent), Infinity when in no list. */
  rank: number;
  inflected: boolean;
  everyday: boolean;
  digit: boolean;
  /** Written with a capital inside it or not at the question's start. */
  name: boolean;
}

export interface Asked {
  corpus: string;
  question: Question;
  rank: number;
  evidence: Evidence;
  /** Subject words: per word, known or its unknown details. */
  unknown: UnknownWord[];
  /** The idf of each known subject word (its best stem), and which of them the best chunk holds. */
  knownIdf: number[];
  bestHolds: boolean[];
  /** The best chunk's score over the ceiling with unknown words at the unseen idf (the confidence's `score`). */
  score: number;
  /** The second and fifth chunks' scores over the first's. */
  second: number;
  fifth: number;
  /** Subject words the scope uses that are everyday words (`isEverydayWord`). */
  everydayKnown: number;
  /** Names of several words (Home Assistant, Google Drive) each of whose words the scope uses, but no chunk all of them. */
  unheldNames: string[];
  /** Chunks in the scope, distinct terms. */
  size: number;
  vocabulary: number;
}

/**
 * The words of `text` written as names, lowercase: a capital after the first letter
 * (iPhone, WireGuard, CUDA) or a capital first letter where no sentence starts (after a
 * word, not after `.`, `?`, `!`, `:`, `¿`, `¡` or the text's start).
 */
export function namedWords(text: string): Set<string> {
  return new Set(namePhrases(text).flat());
}

/** Runs of words written as names (see `namedWords`), separated by a space or a hyphen only; each word lowercase. */
export function namePhrases(text: string): string[][] {
  const out: string[][] = [];
  let run: string[] = [];
  let end = -1;
  for (const m of text.normalize('NFC').matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    const before = text.slice(0, m.index).trimEnd();
    const start = before === '' || /[.?!:¿¡"'“(]$/u.test(before);
    const named = w.length >= 2 && /\p{Lu}/u.test(w) && (/\p{Lu}/u.test(w.slice(1)) || !start);
    const joined = end >= 0 && /^[ -]?$/u.test(text.slice(end, m.index));
    if (named && joined) run.push(w.toLowerCase());
    else {
      if (run.length) out.push(run);
      run = named ? [w.toLowerCase()] : [];
    }
    end = m.index! + w.length;
  }
  if (run.length) out.push(run);
  return out;
}

/** The general-language ranks of words: exact word, or a word of the same Snowball stem. */
export function generalRanks(): (word: string) => number {
  if (!COMMON_DIR || !existsSync(COMMON_DIR)) return () => Infinity;
  const lists: [string, 'en' | 'es'][] = [];
  for (const sub of readdirSync(COMMON_DIR)) {
    const lang = sub.includes('-en-') ? 'en' : sub.includes('-es-') ? 'es' : undefined;
    if (!lang) continue;
    const files = (process.env.BENCH_COMMON_FILES ?? 'commonWords').split(',');
    for (const f of files) {
      const p = join(COMMON_DIR, sub, 'package/src', `${f}.json`);
      if (existsSync(p)) lists.push([p, lang]);
    }
  }
  const word = new Map<string, number>();
  const stem = { en: new Map<string, number>(), es: new Map<string, number>() };
  for (const [p, lang] of lists) {
    (JSON.parse(readFileSync(p, 'utf8')) as string[]).forEach((w, i) => {
      const lw = String(w).normalize('NFC').toLowerCase();
      if (!/^\p{L}+$/u.test(lw)) return;
      const r = i + 1;
      if (!(word.get(lw)! <= r)) word.set(lw, r);
      const s = snowballStem(lw, lang);
      if (!(stem[lang].get(s)! <= r)) stem[lang].set(s, r);
    });
  }
  const byStem = process.env.BENCH_COMMON_STEMS !== '0';
  return (w: string) =>
    Math.min(
      word.get(w) ?? Infinity,
      byStem ? Math.min(stem.en.get(snowballStem(w, 'en')) ?? Infinity, stem.es.get(snowballStem(w, 'es')) ?? Infinity) : Infinity,
    );
}

export function loadCorpora(): { name: string; chunks: CapturedChunk[]; questions: Question[] }[] {
  return capturedCorpora(DIR).map((name) => {
    const captured = JSON.parse(readFileSync(join(DIR, `${name}.chunks.json`), 'utf8')) as { chunks: CapturedChunk[]; questions: Question[] };
    const file = new URL(`../corpora/${name}.json`, import.meta.url);
    let questions = captured.questions;
    if (existsSync(file)) {
      const cross = new Map(captured.questions.map((q) => [q.id, q.cross]));
      questions = (JSON.parse(readFileSync(file, 'utf8')) as { questions: Question[] }).questions.map((q) => ({
        ...q,
        cross: cross.get(q.id) ?? q.cross ?? false,
      }));
    }
    return { name, chunks: captured.chunks, questions };
  });
}

/** Every question of a corpus ranked by src's BM25, with its evidence and signals. */
export function askAll(name: string, chunks: CapturedChunk[], questions: Question[], rankOfWord: (w: string) => number): Asked[] {
  const headed = new Set(chunks.filter((c) => hasHeading(c.text)).map((c) => c.sourceId));
  const analyses = chunks.map((c) => analyzeChunk(c.text, c.title, c.lang, headed.has(c.sourceId)));
  const dictionary = new Map<string, number>();
  for (const a of analyses) for (const t of a.terms) if (!dictionary.has(t)) dictionary.set(t, dictionary.size);
  const termsOf = analyses.map((a) => chunkTerms(a, dictionary));
  const lexical = LexicalIndex.build(termsOf, dictionary.size);
  const n = chunks.length;
  const idf = (id: number) => lexical.idf(id);
  return questions.map((question) => {
    const t = questionTerms({ dictionary, lexical }, question.text);
    const { hits, ceiling } = lexical.search(t.groups, 10, () => true);
    const ranked = hits.map((h) => chunks[h.position]!.section);
    const evidence: Evidence = {
      best: hits[0]?.score ?? 0,
      ceiling,
      words: t.words,
      unknown: t.unknown,
      strong: t.strong,
      weak: t.weak,
      unheldNames: t.names.filter((name) => !lexical.together(name)).length,
      unseenIdf: lexical.unseenIdf,
      vocabulary: lexical.vocabularySize,
    };
    const balance = languageBalance(question.text);
    const named = namedWords(question.text);
    const unknown: UnknownWord[] = [];
    const knownIdf: number[] = [];
    const bestHolds: boolean[] = [];
    const best = hits[0] ? new Set(termsOf[hits[0].position]!.ids) : new Set<number>();
    let everydayKnown = 0;
    for (const w of queryWords(question.text)) {
      if (isQuestionWord(fold(w.word))) continue;
      const ids = w.stems.map((s) => dictionary.get(s)).filter((id): id is number => id !== undefined && lexical.df(id) > 0);
      if (ids.length) {
        if (isEverydayWord(w.word, balance)) everydayKnown += 1;
        knownIdf.push(Math.max(...ids.map(idf)));
        bestHolds.push(ids.some((id) => best.has(id)));
        continue;
      }
      unknown.push({
        word: w.word,
        rank: rankOfWord(w.word),
        inflected: isInflectedForm(w.word, balance),
        everyday: isEverydayWord(w.word, balance),
        digit: /\d/.test(w.word),
        name: named.has(w.word),
      });
    }
    const score = evidence.best / Math.max(1e-9, ceiling + t.unknown * lexical.unseenIdf);
    const unheldNames: string[] = [];
    for (const phrase of namePhrases(question.text)) {
      const ids = phrase.map((w) =>
        [snowballStem(w, 'en'), snowballStem(w, 'es')].map((s) => dictionary.get(s)).filter((id): id is number => id !== undefined && lexical.df(id) > 0),
      );
      if (phrase.length < 2 || ids.some((x) => x.length === 0)) continue;
      const held = termsOf.some((tt) => ids.every((alts) => alts.some((id) => tt.ids.includes(id))));
      if (!held) unheldNames.push(phrase.join(' '));
    }
    const s = hits.map((h) => h.score);
    return {
      corpus: name,
      question,
      rank: rankOf(question, distinctSections(ranked)),
      evidence,
      unknown,
      knownIdf,
      bestHolds,
      score,
      unheldNames,
      everydayKnown,
      second: s.length > 1 ? s[1]! / s[0]! : 0,
      fifth: s.length > 4 ? s[4]! / s[0]! : 0,
      size: n,
      vocabulary: lexical.vocabularySize,
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rankOfWord = generalRanks();
  for (const c of loadCorpora()) {
    for (const a of askAll(c.name, c.chunks, c.questions, rankOfWord)) {
      const u = a.unknown
        .map((w) => `${w.word}:${w.rank === Infinity ? '-' : w.rank}${w.inflected ? 'I' : ''}${w.everyday ? 'E' : ''}${w.digit ? 'D' : ''}${w.name ? 'N' : ''}`)
        .join(',');
      const kn = a.knownIdf.map((x, i) => `${x.toFixed(1)}${a.bestHolds[i] ? '*' : ''}`).join(' ');
      console.log(
        `${c.name.slice(0, 5)} ${a.question.id} ${a.question.kind.slice(0, 4)} r${a.rank} s${a.score.toFixed(2)} {${a.unheldNames.join(',')}} 2nd ${a.second.toFixed(2)} w${a.evidence.words} [${u}] known ${kn} | ${a.question.text.slice(0, 60)}`,
      );
    }
  }
}
