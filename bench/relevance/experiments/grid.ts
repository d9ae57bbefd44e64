/**
 * BM25F's saturation and length normalisation (k1, b per field) and the heading weight,
 * over a grid: MRR@10 of the ranking alone on both halves and the second corpus. The
 * choice is made on the tuning half only (odd ids); the rest are checks.
 */
import { fmt } from '../../support.js';
import { figures, rankOf, type Question } from '../metrics.js';
import { lexicalApproach, type Approach } from './approaches.js';
import { capture, loadQuestions, type Chunk } from './data.js';
import { handbookDocuments, handbookInstalled, handbookQuestions } from './handbook.js';

const halfOf = (q: Question) => (Number(q.id.slice(1)) % 2 === 1 ? 'tune' : 'test');

function mrr(approach: Approach, chunks: Chunk[], questions: Question[]) {
  const retrieve = approach.build(chunks);
  const out = questions
    .filter((q) => q.kind !== 'no-answer')
    .map((question) => ({
      question,
      rank: rankOf(
        question,
        retrieve(question.text, 10).positions.map((i) => chunks[i]!.section),
      ),
      passages: 10,
      sections: [],
    }));
  const of = (pick: (q: Question) => boolean) => figures(out.filter((o) => pick(o.question))).mrr;
  return {
    tune: of((q) => halfOf(q) === 'tune'),
    test: of((q) => halfOf(q) === 'test'),
    tunePara: of((q) => halfOf(q) === 'tune' && q.kind === 'paraphrased'),
    testPara: of((q) => halfOf(q) === 'test' && q.kind === 'paraphrased'),
    all: of(() => true),
  };
}

const questions = loadQuestions();
const { chunks } = await capture(questions);
const hb = handbookInstalled()
  ? (() => {
      const docs = handbookDocuments();
      return { docs, q: handbookQuestions(docs) };
    })()
  : undefined;
const hbChunks = hb && (await capture(hb.q, hb.docs)).chunks;

const grid: { k1: number; bHead: number; bBody: number; headWeight: number }[] = [];
for (const k1 of (process.env.GRID_K1 ?? '0.6,0.9,1.2,1.6,2.2').split(',').map(Number))
  for (const bBody of (process.env.GRID_BBODY ?? '0.3,0.5,0.75,0.9').split(',').map(Number))
    for (const bHead of (process.env.GRID_BHEAD ?? '0.3,0.75').split(',').map(Number))
      for (const headWeight of (process.env.GRID_HW ?? '2,3').split(',').map(Number)) grid.push({ k1, bHead, bBody, headWeight });
console.log('k1   bBody bHead hw   | tune  test  all  | para tune test | handbook');
for (const p of grid) {
  const approach = lexicalApproach('grid', { langMode: 'block', title: true, ...p }, undefined, 'verbs');
  const d = mrr(approach, chunks, questions);
  const h = hb && hbChunks ? mrr(approach, hbChunks, hb.q).all : NaN;
  console.log(
    `${String(p.k1).padEnd(4)} ${String(p.bBody).padEnd(5)} ${String(p.bHead).padEnd(5)} ${String(p.headWeight).padEnd(4)} | ${fmt(d.tune, 3)} ${fmt(d.test, 3)} ${fmt(d.all, 3)} | ${fmt(d.tunePara, 3)} ${fmt(d.testPara, 3)} | ${fmt(h, 3)}`,
  );
}
