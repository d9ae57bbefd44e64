/**
 * The development set's questions over the held-out set's shape (issue 25):
 * `node --import tsx bench/relevance/experiments/held-out-shape.ts`.
 *
 * The held-out set is 529 documents, 281 English and 248 Spanish, partly translated; the
 * ingestion bench builds that shape from the Debian Reference (`heldOutShape`: the 281
 * largest English and the 248 largest Spanish sections). Here the same pages, each under
 * a neutral file name, are asked the development set's questions, which then fall into
 * what the held-out set's report counts: a question whose sections are all left out has
 * no answer in the knowledge any more (a near-domain question: the rest of its chapter is
 * there); a Spanish question whose sections are there in English only (or an English one
 * in Spanish only) is cross-language. The questions were written on the whole manual and
 * tuned on, so this is no held-out figure: it says what the shape does to them. Nothing
 * here is tuned: it measures the ranking as it is. `SHOW=1` lists the questions ranked
 * otherwise than BM25 ranks them, `SHOW=top` with their three best sections.
 */
import { fmt } from '../../support.js';
import type { Corpus } from '../corpora/corpus.js';
import { corpusInstalled } from '../corpora/reference-reader.js';
import { shapeDocuments } from '../corpora/reference-shape.js';
import { evaluate } from '../evaluate.js';
import { figures, type Outcome, type Question } from '../metrics.js';
import { loadQuestions } from './data.js';

if (!corpusInstalled()) {
  console.log('debian-reference-en and debian-reference-es are not installed (see bench/relevance/README.md)');
  process.exit(0);
}

const docs = shapeDocuments();
const held = { en: new Set<string>(), es: new Set<string>() };
for (const d of docs) held[d.lang].add(d.section);

/** What the question became over these pages. */
type Fate = 'no-answer' | 'left-out' | 'cross' | 'own';
const fate = new Map<string, Fate>();
const questions: Question[] = loadQuestions().map((q) => {
  if (q.kind === 'no-answer') {
    fate.set(q.id, 'no-answer');
    return q;
  }
  const own = q.relevant.some((s) => held[q.lang].has(s));
  const other = q.relevant.some((s) => held[q.lang === 'en' ? 'es' : 'en'].has(s));
  if (!own && !other) {
    fate.set(q.id, 'left-out');
    return { ...q, kind: 'no-answer', relevant: [] };
  }
  fate.set(q.id, own ? 'own' : 'cross');
  return { ...q, cross: !own };
});
const corpus: Corpus = {
  name: 'the held-out shape of the reference',
  role: 'dev',
  packages: [],
  installed: corpusInstalled,
  documents: () => docs,
  questions: () => questions,
};

const run = await evaluate(corpus);
console.log(`${corpus.name}: ${run.documents} documents (${held.en.size} en, ${held.es.size} es), ${run.chunks.length} chunks`);
console.log('  MRR@10 as answered / ranking alone / BM25; answerable refused');
const rows: [string, (q: Question) => boolean][] = [
  ['all answerable', () => true],
  // As the held-out report counts them: a kind's row holds its cross-language questions too.
  ['same words', (q) => q.kind === 'same-words'],
  ['paraphrased', (q) => q.kind === 'paraphrased'],
  ['same words, not cross', (q) => q.kind === 'same-words' && !q.cross],
  ['paraphrased, not cross', (q) => q.kind === 'paraphrased' && !q.cross],
  ['es question, answer only in en', (q) => q.cross === true && q.lang === 'es'],
  ['en question, answer only in es', (q) => q.cross === true && q.lang === 'en'],
];
const mrr = (list: Outcome[]) => fmt(figures(list).mrr, 3);
for (const [name, keep] of rows) {
  const pick = (list: Outcome[]) => list.filter((o) => o.question.kind !== 'no-answer' && keep(o.question));
  const refused = pick(run.ours).filter((o) => o.passages === 0).length;
  console.log(
    `  ${name.padEnd(34)} n ${String(pick(run.ours).length).padStart(3)}  ${mrr(pick(run.ours))}  ${mrr(pick(run.alone))}  ${mrr(pick(run.bm25))}  refused ${refused}`,
  );
}
for (const kind of ['no-answer', 'left-out'] as const) {
  const list = run.ours.filter((o) => fate.get(o.question.id) === kind);
  const refused = list.filter((o) => o.passages === 0).length;
  const label = kind === 'no-answer' ? 'no answer (written so), refused' : 'answer left out of the shape, refused';
  console.log(`  ${label.padEnd(38)} ${refused} of ${list.length}`);
}
if (process.env.SHOW) {
  // The answerable questions that rank worse than BM25 here, and those that rank better.
  for (const [k, o] of run.ours.entries()) {
    const b = run.bm25[k]!;
    if (o.question.kind === 'no-answer' || o.rank === b.rank) continue;
    const worse = (o.rank || 99) > (b.rank || 99);
    console.log(
      `  ${worse ? 'worse' : 'better'} ${o.question.id} ${o.question.kind}${o.question.cross ? ' cross' : ''} ${o.rank || '-'} (BM25 ${b.rank || '-'}): ${o.question.text}`,
    );
    if (process.env.SHOW === 'top')
      console.log(`      ours ${o.sections.slice(0, 3).join(' ')} | BM25 ${b.sections.slice(0, 3).join(' ')} | wanted ${o.question.relevant.join(' ')}`);
  }
}
