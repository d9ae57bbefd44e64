import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fmt } from '../support.js';
import { compareReports, readReport } from './compare.js';
import { allCorpora } from './corpora/index.js';
import { evaluate, type CorpusRun } from './evaluate.js';
import { figures, type Outcome } from './metrics.js';
import { embeddingsFromEnv } from './embeddings.js';

/**
 * `BENCH_RELEVANCE_REPORT=file.json` writes every question's ranks, for looking into
 * misses; a blind corpus's questions without their text, sections or scores (its id,
 * kind and ranks only), so that no report shows what a blind set asks.
 */
const REPORT = process.env.BENCH_RELEVANCE_REPORT;
/** `BENCH_RELEVANCE_COMPARE=earlier.json`: which questions moved since that report (a blind corpus's as counts). */
const COMPARE = process.env.BENCH_RELEVANCE_COMPARE;
/** `BENCH_RELEVANCE_CORPORA=name,name` runs some corpora only. */
const ONLY = process.env.BENCH_RELEVANCE_CORPORA?.split(',').filter(Boolean);

const pct = (x: number): string => `${fmt(100 * x, 0)}%`;
const mrr = (x: number): string => fmt(x, 3).replace(/^0/, '');

interface Measures {
  n: number;
  mrr: number;
  top1: number;
  own: number;
  para: number;
  cross: number;
  crossN: number;
  answerableRefused: number;
  noAnswerRefused: number;
  noAnswerN: number;
}

function measures(outcomes: Outcome[]): Measures {
  const answerable = outcomes.filter((o) => o.question.kind !== 'no-answer');
  const none = outcomes.filter((o) => o.question.kind === 'no-answer');
  const all = figures(answerable);
  const cross = answerable.filter((o) => o.question.cross);
  return {
    n: all.n,
    mrr: all.mrr,
    top1: all.top1,
    own: figures(answerable.filter((o) => o.question.kind === 'same-words')).mrr,
    para: figures(answerable.filter((o) => o.question.kind === 'paraphrased')).mrr,
    cross: figures(cross).mrr,
    crossN: cross.length,
    answerableRefused: answerable.filter((o) => o.passages === 0).length / Math.max(1, answerable.length),
    noAnswerRefused: none.filter((o) => o.passages === 0).length / Math.max(1, none.length),
    noAnswerN: none.length,
  };
}

/**
 * Issue 25's goals for its held-out set, measured on the corpus of that set's shape
 * (`reference-shape`): its report counts a kind's cross-language questions in the kind,
 * and its cross-language goal is on Spanish questions answered only in English.
 */
function heldOutGoals(run: CorpusRun): string {
  const answerable = (list: Outcome[], keep: (o: Outcome) => boolean) => list.filter((o) => o.question.kind !== 'no-answer' && keep(o));
  const goals: [string, (o: Outcome) => boolean, number][] = [
    ['MRR@10', () => true, 0.68],
    ['own words', (o) => o.question.kind === 'same-words', 0.92],
    ['paraphrased', (o) => o.question.kind === 'paraphrased', 0.5],
    ['es question, en answer', (o) => o.question.cross === true && o.question.lang === 'es', 0.45],
  ];
  const cells = goals.map(([name, keep, goal]) => {
    const ours = figures(answerable(run.ours, keep)).mrr;
    return `${name} ${mrr(ours)} (BM25 ${mrr(figures(answerable(run.bm25, keep)).mrr)}; goal ${mrr(goal)}${ours >= goal ? ', met' : ', missed'})`;
  });
  return `held-out goals on reference-shape [blind]: ${cells.join('; ')}`;
}

/** Passage scores: within 0..1, never rising, and no two different passages of one answer tied. */
function scoreCheck(run: CorpusRun): string {
  let outside = 0;
  let rising = 0;
  let tiedTop = 0;
  let tiedAny = 0;
  run.scores.forEach((scores, q) => {
    const texts = run.texts[q]!;
    let tied = false;
    for (let i = 0; i < scores.length; i++) {
      if (scores[i]! < 0 || scores[i]! > 1) outside += 1;
      if (i === 0) continue;
      if (scores[i]! > scores[i - 1]!) rising += 1;
      if (scores[i] === scores[i - 1] && texts[i] !== texts[i - 1]) {
        tied = true;
        if (i === 1) tiedTop += 1;
      }
    }
    if (tied) tiedAny += 1;
  });
  return `scores: ${outside} outside 0..1, ${rising} rising, two best tied in ${tiedTop} and any two different passages tied in ${tiedAny} of ${run.scores.length} answers`;
}

/**
 * Retrieval quality on real documentation from Debian packages: every corpus of the
 * protocol (`corpora/`), ingested through the API, every labelled question asked through
 * `POST /v1/agents/{id}/query`; one table of corpus x measure, `/query` as answered beside
 * Okapi BM25 with Snowball stems over the same chunks in the same run. A corpus whose
 * package is missing is skipped and named.
 */
export async function run(): Promise<void> {
  const t0 = performance.now();
  const embedder = await embeddingsFromEnv();
  const runs: CorpusRun[] = [];
  const skipped: string[] = [];
  for (const corpus of await allCorpora()) {
    if (ONLY && !ONLY.includes(corpus.name)) continue;
    if (!corpus.installed()) {
      skipped.push(`${corpus.name}${corpus.role === 'blind' ? ' [blind]' : ''} skipped, not installed: apt-get install -y ${corpus.packages.join(' ')}`);
      continue;
    }
    const r = await evaluate(corpus, embedder ? { embedder: embedder.embedder } : {});
    runs.push(r);
    const q = r.questions;
    console.log(
      `${corpus.name}${corpus.role === 'blind' ? ' [blind]' : ''}: ${r.documents} documents, ${r.chunks.length} chunks${r.failed ? `, ${r.failed} documents FAILED` : ''}, ingested in ${fmt(r.ingestMs / 1000)} s, first query ${fmt(r.firstQueryMs, 0)} ms; ` +
        `${q.length} questions (${q.filter((x) => x.kind === 'same-words').length} own words, ${q.filter((x) => x.kind === 'paraphrased').length} paraphrased, ${q.filter((x) => x.kind === 'no-answer').length} no answer, ${q.filter((x) => x.cross).length} cross-language)`,
    );
    console.log(`  ${scoreCheck(r)}`);
  }
  for (const s of skipped) console.log(s);
  if (embedder) console.log(`embeddings: ${embedder.label} (fused with the lexical ranking; BM25 is words only)`);

  console.log('\n/query as answered (refusals count as misses) | BM25 + Snowball over the same chunks; MRR@10 and top-1 over answerable questions');
  const cols = ['MRR@10', 'top-1', 'own words', 'paraphrased', 'cross-lang', 'ans. refused', 'no-ans refused'];
  const w = 14;
  console.log(`${'corpus'.padEnd(30)} ${'n'.padStart(4)}  ${cols.map((c) => c.padEnd(w)).join('')}`);
  console.log(`${''.padEnd(36)}${cols.map(() => 'ours  BM25'.padEnd(w)).join('')}`);
  for (const r of runs) {
    const a = measures(r.ours);
    const b = measures(r.bm25);
    const name = `${r.corpus.name}${r.corpus.role === 'blind' ? ' [blind]' : r.corpus.role === 'dev' ? ' (dev)' : ''}`;
    const cell = (x: string, y: string) => `${x.padEnd(5)} ${y}`.padEnd(w);
    console.log(
      `${name.padEnd(30)} ${String(a.n).padStart(4)}  ` +
        cell(mrr(a.mrr), mrr(b.mrr)) +
        cell(pct(a.top1), pct(b.top1)) +
        cell(mrr(a.own), mrr(b.own)) +
        cell(mrr(a.para), mrr(b.para)) +
        (a.crossN ? cell(mrr(a.cross), mrr(b.cross)) : cell('-', '-')) +
        cell(pct(a.answerableRefused), pct(b.answerableRefused)) +
        (a.noAnswerN ? cell(pct(a.noAnswerRefused), pct(b.noAnswerRefused)) : cell('-', '-')),
    );
  }
  const behind = runs.filter((r) => {
    const a = measures(r.ours);
    const b = measures(r.bm25);
    return a.mrr < b.mrr - 1e-9 || a.own < b.own - 1e-9;
  });
  const aloneLine = runs.map((r) => `${r.corpus.name} ${mrr(measures(r.alone).mrr)}`).join(', ');
  console.log(`ranking without its refusal, MRR@10: ${aloneLine}`);
  console.log(
    behind.length
      ? `BEHIND BM25 (MRR@10 or own words) on: ${behind.map((r) => r.corpus.name).join(', ')}`
      : 'at least BM25 on MRR@10 and own words on every corpus measured',
  );
  const shape = runs.find((r) => r.corpus.name === 'reference-shape');
  if (shape) console.log(heldOutGoals(shape));
  if (embedder) {
    console.log('\nwith the embeddings, /query as answered: words alone | fused by reciprocal rank (D-306, superseded) | the shipped rule (D-1219)');
    const fcols = ['MRR@10', 'own words', 'paraphrased', 'cross-lang'];
    const fw = 20;
    console.log(`${'corpus'.padEnd(30)} ${'n'.padStart(4)}  ${fcols.map((c) => c.padEnd(fw)).join('')}`);
    console.log(`${''.padEnd(36)}${fcols.map(() => 'words rrf   D-1219'.padEnd(fw)).join('')}`);
    const fusedBehind: string[] = [];
    for (const r of runs) {
      if (!r.fusion) continue;
      const [l, f, o] = [measures(r.fusion.lexical), measures(r.fusion.rrf), measures(r.ours)];
      const cell = (k: 'mrr' | 'own' | 'para' | 'cross') => `${mrr(l[k]).padEnd(5)} ${mrr(f[k]).padEnd(5)} ${mrr(o[k])}`.padEnd(fw);
      console.log(`${r.corpus.name.padEnd(30)} ${String(l.n).padStart(4)}  ${cell('mrr')}${cell('own')}${cell('para')}${l.crossN ? cell('cross') : '-'}`);
      if (o.mrr < l.mrr - 1e-9 || o.own < l.own - 1e-9) fusedBehind.push(r.corpus.name);
    }
    console.log(
      fusedBehind.length
        ? `FUSED BEHIND WORDS ALONE (MRR@10 or own words) on: ${fusedBehind.join(', ')}`
        : 'fused at least words alone on MRR@10 and own words on every corpus measured',
    );
  }
  const digest = createHash('sha256')
    .update(JSON.stringify(runs.map((r) => r.ours.map((o) => [o.rank, o.passages]))))
    .digest('hex')
    .slice(0, 12);
  console.log(`(whole run ${fmt((performance.now() - t0) / 1000)} s; ranks digest ${digest}: the same on every run)`);

  if (!REPORT && !COMPARE) return;
  const rows = runs.flatMap((r) =>
    r.questions.map((q, i) => {
      const ranks = { rank: r.ours[i]!.rank, unrefusedRank: r.alone[i]!.rank, bm25Rank: r.bm25[i]!.rank, passages: r.ours[i]!.passages };
      const row = { corpus: r.corpus.name, id: q.id, lang: q.lang, kind: q.kind, cross: q.cross ?? false, ...ranks };
      if (r.corpus.role === 'blind') return { ...row, scoresDigest: createHash('sha256').update(JSON.stringify(r.scores[i])).digest('hex').slice(0, 12) };
      const shown = {
        text: q.text,
        relevant: q.relevant,
        scores: r.scores[i],
        unrefusedScores: r.aloneScores[i],
        top: r.ours[i]!.sections.slice(0, 5),
        bm25Top: r.bm25[i]!.sections.slice(0, 5),
      };
      return { ...row, ...shown };
    }),
  );
  if (COMPARE) {
    const blind = new Set(runs.filter((r) => r.corpus.role === 'blind').map((r) => r.corpus.name));
    console.log(`\nmoved since ${COMPARE}:`);
    for (const line of compareReports(readReport(COMPARE), rows, blind)) console.log(line);
  }
  if (REPORT) {
    writeFileSync(REPORT, JSON.stringify(rows, null, 1));
    console.log(`per-question ranks written to ${REPORT}`);
  }
}
