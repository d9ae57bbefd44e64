/**
 * The retrieval experiments of issue 14 on the Debian Reference development set:
 * `node --import tsx bench/relevance/experiments/run.ts` (see DESIGN.md beside this file).
 *
 * Every approach ranks the same chunks the emulator produced (captured once through the
 * API, then cached) and is printed beside the emulator's own `/query` and the BM25
 * baseline, on a tuning half and a test half of the questions (by id parity: odd ids
 * tune, even ids test). Thresholds are chosen on the tuning half only.
 */
import { performance } from 'node:perf_hooks';
import { fmt, percentile } from '../../support.js';
import { buildBm25 } from '../bm25.js';
import { corpusInstalled, INSTALL_HINT } from '../corpus.js';
import { distinctSections, figures, rankOf, type Outcome, type Question } from '../metrics.js';
import { APPROACHES, CHOSEN, type Retriever } from './approaches.js';
import { capture, loadQuestions, type Chunk } from './data.js';
import { measureScale } from './scale.js';
import { calibrate, noAnswerFigures } from './threshold.js';

const LIMIT = 10;
const ONLY = process.env.BENCH_EXPERIMENTS?.split(',');
const VERBOSE = process.env.BENCH_EXPERIMENTS_VERBOSE === '1';

type Half = 'tune' | 'test';
const halfOf = (q: Question): Half => (Number(q.id.slice(1)) % 2 === 1 ? 'tune' : 'test');

interface Scored extends Outcome {
  confidence: number;
}

const pct = (x: number): string => `${fmt(100 * x, 0).padStart(3)}%`;

function row(name: string, outcomes: Scored[], threshold: number | undefined): string {
  const cells: string[] = [];
  for (const half of ['tune', 'test'] as Half[]) {
    const mine = outcomes.filter((o) => halfOf(o.question) === half);
    const answerable = mine.filter((o) => o.question.kind !== 'no-answer');
    const all = figures(answerable);
    const same = figures(answerable.filter((o) => o.question.kind === 'same-words'));
    const para = figures(answerable.filter((o) => o.question.kind === 'paraphrased'));
    const cross = figures(answerable.filter((o) => o.question.cross));
    let na = '     -      ';
    if (threshold !== undefined) {
      const f = noAnswerFigures(mine, threshold);
      na = `${pct(f.abstained)} ${pct(f.kept)}`;
    }
    cells.push(`${pct(all.top1)} ${pct(all.top3)} ${fmt(all.mrr, 3)}  ${fmt(same.mrr, 3)} ${fmt(para.mrr, 3)} ${fmt(cross.mrr, 3)}  ${na}`);
  }
  return `${name.padEnd(30)} ${cells.join(' | ')}`;
}

function header(): string {
  const half = 'top1 top3  MRR   same  para  cross  NA-off kept';
  return `${''.padEnd(30)} ${'tune (odd ids)'.padEnd(half.length)} | test (even ids)\n${''.padEnd(30)} ${half} | ${half}`;
}

function outcomesOf(questions: Question[], chunks: Chunk[], retrieve: Retriever): { outcomes: Scored[]; ms: number[] } {
  const ms: number[] = [];
  const outcomes = questions.map((question) => {
    const t0 = performance.now();
    const { positions, confidence } = retrieve(question.text, LIMIT);
    ms.push(performance.now() - t0);
    const ranked = positions.map((i) => chunks[i]!.section);
    return { question, rank: rankOf(question, ranked), passages: positions.length, sections: distinctSections(ranked), confidence };
  });
  return { outcomes, ms };
}

export async function run(): Promise<void> {
  if (!corpusInstalled()) {
    console.log(`skipped: ${INSTALL_HINT}`);
    return;
  }
  const questions = loadQuestions();
  const captured = await capture(questions);
  const chunks = captured.chunks;
  console.log(`${chunks.length} chunks of the emulator (cache ${captured.key}); ${questions.length} questions, tune ${questions.filter((q) => halfOf(q) === 'tune').length} / test ${questions.filter((q) => halfOf(q) === 'test').length}`);
  console.log(header());

  const emulator: Scored[] = questions.map((question, i) => {
    const a = captured.emulator[i]!;
    return { question, rank: a.rank, passages: a.passages, sections: a.sections, confidence: 1 };
  });
  console.log(row('emulator /query (main)', emulator, 0.5));
  const bm25 = buildBm25(chunks.map((c) => ({ id: String(chunks.indexOf(c)), text: c.text, lang: c.lang })));
  const baseline = outcomesOf(questions, chunks, (q, k) => ({ positions: bm25(q, k).map(Number), confidence: 1 }));
  console.log(row('BM25 baseline (wink)', baseline.outcomes, undefined));

  for (const approach of APPROACHES) {
    if (ONLY && !ONLY.some((o) => approach.name.includes(o))) continue;
    const b0 = performance.now();
    const retrieve = approach.build(chunks);
    const buildMs = performance.now() - b0;
    const { outcomes, ms } = outcomesOf(questions, chunks, retrieve);
    const threshold = calibrate(outcomes.filter((o) => halfOf(o.question) === 'tune'));
    console.log(row(approach === CHOSEN ? `* ${approach.name}` : approach.name, outcomes, threshold));
    if (VERBOSE || approach === CHOSEN) console.log(`    build ${fmt(buildMs, 0)} ms, query p50 ${fmt(percentile(ms, 50), 2)} ms p95 ${fmt(percentile(ms, 95), 2)} ms, threshold ${fmt(threshold, 3)}`);
  }

  const size = Number(process.env.BENCH_EXPERIMENTS_SCALE ?? 100_000);
  if (size > 0) {
    console.log(`latency of the chosen approach (${CHOSEN.name}):`);
    measureScale(chunks, questions, size, CHOSEN.options, CHOSEN.expand);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

