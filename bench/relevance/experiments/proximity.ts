/**
 * Term proximity (round 3): the chosen BM25F's top 50 re-scored with a bonus for query
 * words that stand close together in the chunk, `w × Σ over pairs of query words
 * min(idf) / distance` (pairs within `window` words; a BM25TP-like term). MRR@10 of the
 * ranking alone; the weight is chosen on the tuning half (odd ids) only.
 */
import { fmt } from '../../support.js';
import { figures, rankOf, type Question } from '../metrics.js';
import { capture, loadQuestions, type Chunk } from './data.js';
import { handbookDocuments, handbookInstalled, handbookQuestions } from './handbook.js';
import { installationDocuments, installationInstalled, installationQuestions } from './installation.js';
import { LexicalRetriever } from './lexical.js';

const halfOf = (q: Question) => (Number(q.id.slice(1)) % 2 === 1 ? 'tune' : 'test');

function retriever(chunks: Chunk[], w: number, window: number) {
  const lex = new LexicalRetriever(chunks, { langMode: 'block', headWeight: 2, title: true });
  return (query: string): number[] => {
    const groups = lex.groups(query).filter((g) => g.length > 0);
    const { hits } = lex.index.search(groups, 50);
    if (w === 0) return hits.slice(0, 10).map((h) => h.position);
    const idf = groups.map((g) => Math.max(...g.map((a) => lex.index.idf(a.term))));
    const rescored = hits.map((h) => {
      const a = lex.analysed[h.position]!;
      const seq = [...a.head, ...Array(window + 1).fill(''), ...a.body];
      const at = groups.map((g) => {
        const terms = new Set(g.map((x) => x.term));
        const out: number[] = [];
        seq.forEach((t, i) => terms.has(t) && out.push(i));
        return out;
      });
      let bonus = 0;
      for (let i = 0; i < groups.length; i++)
        for (let j = i + 1; j < groups.length; j++) {
          let d = Infinity;
          for (const p of at[i]!) for (const q of at[j]!) if (p !== q) d = Math.min(d, Math.abs(p - q));
          if (d <= window) bonus += Math.min(idf[i]!, idf[j]!) / d;
        }
      return { position: h.position, score: h.score + w * bonus };
    });
    return rescored
      .sort((x, y) => y.score - x.score || x.position - y.position)
      .slice(0, 10)
      .map((h) => h.position);
  };
}

function mrr(chunks: Chunk[], questions: Question[], w: number, window: number) {
  const r = retriever(chunks, w, window);
  const out = questions
    .filter((q) => q.kind !== 'no-answer')
    .map((question) => ({
      question,
      rank: rankOf(
        question,
        r(question.text).map((i) => chunks[i]!.section),
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
    para: of((q) => q.kind === 'paraphrased'),
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
const ig = installationInstalled()
  ? (() => {
      const docs = installationDocuments();
      return { docs, q: installationQuestions(docs) };
    })()
  : undefined;
const igChunks = ig && (await capture(ig.q, ig.docs)).chunks;
console.log('w     window | tune  test  all  | para tune test | handbook | install all para');
if (!process.env.PROX_DIFF)
  for (const window of (process.env.PROX_WINDOWS ?? '3,5,10').split(',').map(Number))
    for (const w of [0, 0.05, 0.1, 0.2, 0.4, 0.8]) {
      const d = mrr(chunks, questions, w, window);
      const h = hb && hbChunks ? mrr(hbChunks, hb.q, w, window).all : NaN;
      const i = ig && igChunks ? mrr(igChunks, ig.q, w, window) : undefined;
      console.log(
        `${String(w).padEnd(5)} ${String(window).padEnd(6)} | ${fmt(d.tune, 3)} ${fmt(d.test, 3)} ${fmt(d.all, 3)} | ${fmt(d.tunePara, 3)} ${fmt(d.testPara, 3)} | ${fmt(h, 3)}    | ${i ? `${fmt(i.all, 3)} ${fmt(i.para, 3)}` : '-'}`,
      );
    }

if (process.env.PROX_DIFF && hb && hbChunks) {
  const [w, window] = process.env.PROX_DIFF.split(',').map(Number) as [number, number];
  for (const [name, cs, qs] of [
    ['reference', chunks, questions],
    ['handbook', hbChunks, hb.q],
  ] as const) {
    const base = retriever(cs, 0, window);
    const prox = retriever(cs, w, window);
    for (const q of qs.filter((x) => x.kind !== 'no-answer')) {
      const a = rankOf(
        q,
        base(q.text).map((i) => cs[i]!.section),
      );
      const b = rankOf(
        q,
        prox(q.text).map((i) => cs[i]!.section),
      );
      if (a !== b) console.log(`${name} ${q.id} ${q.kind} ${a} -> ${b}  ${q.text}`);
    }
  }
}
