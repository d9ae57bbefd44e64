/**
 * Round 3 of knowing when it does not know: unknown words among the most common of the
 * question's language count less (`COMMON` in approaches.ts). For each rank cutoff and
 * weight: the threshold calibrated on the tuning half at 80% refused, then refused / kept
 * / found kept and MRR@10 as answered on the test half, the handbook, the installation
 * guide (blind) and the hotel fixture. Without `BENCH_COMMON_DIR` only the shipped 500
 * words of each language (so only cutoffs up to 500 mean anything).
 */
import { fmt } from '../../support.js';
import { figures, type Question } from '../metrics.js';
import { CHOSEN, COMMON, lexicalApproach } from './approaches.js';
import { capture, loadQuestions, type Chunk } from './data.js';
import { fixtureCheck } from './fixture.js';
import { handbookDocuments, handbookQuestions } from './handbook.js';
import { installationDocuments, installationQuestions } from './installation.js';
import { outcomesOf, type Scored } from './run.js';
import { calibrate, noAnswerFigures } from './threshold.js';

const halfOf = (q: Question) => (Number(q.id.slice(1)) % 2 === 1 ? 'tune' : 'test');
const pct = (x: number) => `${fmt(100 * x, 0).padStart(3)}%`;
function cell(outcomes: Scored[], t: number): string {
  const f = noAnswerFigures(outcomes, t);
  const answered = outcomes.filter((o) => o.question.kind !== 'no-answer').map((o) => ({ ...o, rank: o.confidence >= t ? o.rank : 0 }));
  return `${pct(f.abstained)} ${pct(f.kept)} ${pct(f.keptFound)} ${fmt(figures(answered).mrr, 3)}`;
}

const questions = loadQuestions();
const dev = (await capture(questions)).chunks;
const hbDocs = handbookDocuments();
const hbQ = handbookQuestions(hbDocs);
const hb = (await capture(hbQ, hbDocs)).chunks;
const igDocs = installationDocuments();
const igQ = installationQuestions(igDocs);
const ig = (await capture(igQ, igDocs)).chunks;
const sets: [string, Chunk[], Question[]][] = [
  ['handbook', hb, hbQ],
  ['install', ig, igQ],
];

console.log('kind          N     w    | tune: refused kept found MRR | test: ... | handbook: ... | install: ... | hotel');
const configs: [string, number, number][] = [['verbs (D-700)', 0, 1]];
for (const n of (process.env.GRID_N ?? '500,1000,2000,3000,5000').split(',').map(Number))
  for (const w of (process.env.GRID_W ?? '0,0.5').split(',').map(Number)) configs.push(['common', n, w]);
for (const [kind, n, w] of configs) {
  COMMON.rank = n;
  COMMON.weight = w;
  const approach = lexicalApproach(kind, CHOSEN.options, undefined, kind === 'common' ? 'common' : 'verbs');
  const all = outcomesOf(questions, dev, approach.build(dev)).outcomes;
  const tune = all.filter((o) => halfOf(o.question) === 'tune');
  const test = all.filter((o) => halfOf(o.question) === 'test');
  const t = calibrate(tune);
  const others = sets.map(([, c, q]) => cell(outcomesOf(q, c, approach.build(c)).outcomes, t));
  const hotel = fixtureCheck(approach, t)
    .replace(/.*refused at the threshold: /, '')
    .replace(/\n.*/s, '');
  console.log(
    `${kind.padEnd(13)} ${String(n).padEnd(5)} ${String(w).padEnd(4)} t ${t.toFixed(4)} | ${cell(tune, t)} | ${cell(test, t)} | ${others.join(' | ')} | ${hotel}`,
  );
}
