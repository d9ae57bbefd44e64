/**
 * Issue 25: when should `/query` refuse? Ranks the chunks `npm run bench -- relevance`
 * captured (`BENCH_RELEVANCE_CHUNKS=dir`) with src's own analysis and BM25
 * (`analyzeChunk`, `LexicalIndex`, the same term groups as `RetrievalService`), computes
 * each question's evidence (`confidence.ts`'s inputs), and prints, per corpus, what a
 * refusal rule costs: answerable questions refused and no-answer questions refused.
 *
 *   BENCH_RELEVANCE_CHUNKS=/tmp/rel node --import tsx bench/relevance/experiments/refusal.ts
 */
import { chunkTerms } from '../../../src/knowledge/chunk-terms.js';
import { LexicalIndex } from '../../../src/retrieval/lexical-index.js';
import { questionTerms } from '../../../src/retrieval/question-terms.js';
import { confidence, type Evidence } from '../../../src/retrieval/confidence.js';
import { analyzeChunk, hasHeading, queryWords } from '../../../src/text/analyze.js';
import { fmt } from '../../support.js';
import type { CapturedChunk } from '../evaluate.js';
import { distinctSections, rankOf, type Question } from '../metrics.js';
import { load } from './variants.js';

export interface Asked {
  question: Question;
  rank: number;
  evidence: Evidence;
  /** The words the scope never uses. */
  unknownWords: string[];
}

/** src's ranking over captured chunks: every question's rank (no refusal) and evidence. */
export function ask(chunks: CapturedChunk[], questions: Question[]): Asked[] {
  const headed = new Set(chunks.filter((c) => hasHeading(c.text)).map((c) => c.sourceId));
  const analyses = chunks.map((c) => analyzeChunk(c.text, c.title, c.lang, headed.has(c.sourceId)));
  const dictionary = new Map<string, number>();
  for (const a of analyses) for (const t of a.terms) if (!dictionary.has(t)) dictionary.set(t, dictionary.size);
  const lexical = LexicalIndex.build(
    analyses.map((a) => chunkTerms(a, dictionary)),
    dictionary.size,
  );
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
    const unknownWords = queryWords(question.text)
      .filter((w) => w.stems.every((s) => !dictionary.has(s)))
      .map((w) => w.word);
    return { question, rank: rankOf(question, distinctSections(ranked)), evidence, unknownWords };
  });
}

const pct = (x: number) => `${fmt(100 * x, 0)}%`;

/** Answerable refused and no-answer refused under `refuse`. */
export function cost(asked: Asked[], refuse: (a: Asked) => boolean): string {
  const ans = asked.filter((a) => a.question.kind !== 'no-answer');
  const none = asked.filter((a) => a.question.kind === 'no-answer');
  const r1 = ans.filter(refuse).length;
  const r2 = none.filter(refuse).length;
  const mrr = ans.reduce((s, a) => s + (refuse(a) || !a.rank ? 0 : 1 / a.rank), 0) / ans.length;
  return `${String(r1).padStart(3)}/${ans.length} ${pct(r1 / ans.length).padStart(4)} | ${String(r2).padStart(2)}/${none.length} ${pct(r2 / Math.max(1, none.length)).padStart(4)} | ${fmt(mrr, 3)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const corpora = load().map((c) => ({ ...c, asked: ask(c.chunks, c.questions) }));
  const rules: [string, (a: Asked) => boolean][] = [
    ['never', () => false],
    ['confidence.ts (D-910)', (a) => confidence(a.evidence) < 0],
  ];
  console.log(`${''.padEnd(28)}${corpora.map((c) => `${c.name}: answerable refused | no-answer refused | MRR as answered`.padEnd(62)).join('')}`);
  for (const [name, rule] of rules) console.log(`${name.padEnd(28)}${corpora.map((c) => cost(c.asked, rule).padEnd(62)).join('')}`);
  if (process.env.DUMP) {
    for (const c of corpora) {
      for (const a of c.asked) {
        const e = a.evidence;
        const score = e.best / Math.max(1e-9, e.ceiling + e.unknown * e.unseenIdf);
        console.log(
          `${c.name.slice(0, 12)} ${a.question.id} ${a.question.kind.padEnd(11)} r${a.rank} conf ${fmt(confidence(e), 3)} score ${fmt(score, 3)} words ${e.words} unk ${e.unknown} (${a.unknownWords.join(',')}) strong ${e.strong} weak ${e.weak} unheld ${e.unheldNames} | ${a.question.text.slice(0, 70)}`,
        );
      }
    }
  }
}

/** `known` (the share of the question's subject words the scope holds, unknown words weighed as in D-910) and `score`, with the score weighing `w`. */
export function knownOf(e: Evidence, w: number): { known: number; score: number } {
  const score = e.best / Math.max(1e-9, e.ceiling + e.unknown * e.unseenIdf);
  const missing = e.strong + e.unheldNames + e.weak;
  return { known: 1 - missing / Math.max(1, e.words) + w * score, score };
}

if (import.meta.url === `file://${process.argv[1]}` && process.env.GRID) {
  const corpora = load().map((c) => ({ ...c, asked: ask(c.chunks, c.questions) }));
  const rows: { name: string; worst: number; na: number; cells: string }[] = [];
  for (const w of [0, 0.1, 0.2, 0.3, 0.5, 0.8]) {
    for (let t = 0.8; t <= 1.3; t += 0.01) {
      const refuse = (a: Asked) => knownOf(a.evidence, w).known < t;
      let worst = 0;
      let na = 0;
      for (const c of corpora) {
        const ans = c.asked.filter((a) => a.question.kind !== 'no-answer');
        worst = Math.max(worst, ans.filter(refuse).length / ans.length);
        na += c.asked.filter((a) => a.question.kind === 'no-answer' && refuse(a)).length;
      }
      rows.push({ name: `w ${w} t ${fmt(t, 2)}`, worst, na, cells: corpora.map((c) => cost(c.asked, refuse).padEnd(40)).join('') });
    }
  }
  const limit = Number(process.env.GRID);
  for (const r of rows
    .filter((r) => r.worst <= limit)
    .sort((a, b) => b.na - a.na)
    .slice(0, 15))
    console.log(`${r.name.padEnd(16)} ${r.cells}`);
}
