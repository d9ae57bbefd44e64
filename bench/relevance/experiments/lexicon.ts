/**
 * The bilingual lexicon learned from the workspace's own translations (issue 25,
 * decisions D-785 to D-792), measured: `node --import tsx bench/relevance/experiments/lexicon.ts`.
 *
 * Each corpus (the Debian Reference development set, the handbook, the installation
 * guide) is uploaded through the API as `bench/relevance` uploads it, and every question
 * asked with and without the lexicon in the same run (`search(..., { expand: false })`
 * is the query pipeline without its expansion step): `/query` as answered (a refusal is
 * a miss) and the ranking alone, per category, on the tuning half (odd ids) and the test
 * half (even ids) of the development set. Also what the lexicon learned (twins found
 * against the corpus's true pairs, pairs) and what learning costs.
 *
 * `LEXICON_NAMES=neutral` uploads every document under a neutral file name
 * (`doc-0042.html`): no shared anchors, no language tag, so twins are found by content
 * alone and English questions get no help from English file names in Spanish documents
 * (the held-out set's files are named otherwise; see the development set's README).
 * `LEXICON_CORPORA=reference,handbook,installation` picks corpora.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createEmulator } from '../../../emulator/emulator.js';
import { learnLexicon } from '../../../src/knowledge/lexicon/learn.js';
import { fmt } from '../../support.js';
import { corpusInstalled } from '../corpora/reference-reader.js';
import { CATEGORIES, distinctSections, figures, rankOf, type Outcome, type Question } from '../metrics.js';
import { loadQuestions, referenceDocuments, type UploadDocument } from './data.js';
import { handbookDocuments, handbookInstalled, handbookQuestions } from './handbook.js';
import { installationDocuments, installationInstalled, installationQuestions } from './installation.js';

const LIMIT = 10;
const NEUTRAL = process.env.LEXICON_NAMES === 'neutral';
const ONLY = process.env.LEXICON_CORPORA?.split(',');

interface Corpus {
  name: string;
  installed: () => boolean;
  documents: () => UploadDocument[];
  questions: (docs: UploadDocument[]) => Question[];
  /** Report the two halves apart (the development set: odd ids tune, even ids test). */
  halves: boolean;
}

const CORPORA: Corpus[] = [
  { name: 'reference', installed: corpusInstalled, documents: referenceDocuments, questions: () => loadQuestions(), halves: true },
  { name: 'handbook', installed: handbookInstalled, documents: handbookDocuments, questions: handbookQuestions, halves: false },
  { name: 'installation', installed: installationInstalled, documents: installationDocuments, questions: installationQuestions, halves: false },
];

type Variant = 'answered' | 'answered+lex' | 'ranking' | 'ranking+lex';
const VARIANTS: Variant[] = ['answered', 'answered+lex', 'ranking', 'ranking+lex'];

function neutralName(doc: UploadDocument): string {
  return `doc-${createHash('sha256').update(doc.key).digest('hex').slice(0, 8)}.html`;
}

async function measure(corpus: Corpus): Promise<void> {
  const docs = corpus.documents();
  const questions = corpus.questions(docs);
  const emulator = await createEmulator({ log: (m: string, e?: unknown) => { if (/lexicon/.test(m)) console.log(m, e); }, jobConcurrency: 1 });
  try {
    const { workspaceId, apiKey } = await emulator.createWorkspace();
    await emulator.updateWorkspace(workspaceId, { rateLimit: { limit: 1_000_000, windowSeconds: 60 }, dailyActivityCap: null });
    const auth = { authorization: `Bearer ${apiKey.secret}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const agentRes = await emulator.request('/v1/agents', { method: 'POST', headers: json, body: JSON.stringify({ name: 'Debian helper', identity: { businessName: 'Debian' } }) });
    const agentId = ((await agentRes.json()) as { id: string }).id;
    const sectionOf = new Map<string, string>();
    const t0 = performance.now();
    for (const doc of docs) {
      const form = new FormData();
      form.set('file', new File([doc.html], NEUTRAL ? neutralName(doc) : doc.filename, { type: 'text/html' }));
      form.set('agentId', agentId);
      const res = await emulator.request('/v1/knowledge/uploads', { method: 'POST', headers: auth, body: form });
      if (res.status !== 202) throw new Error(`add ${doc.key}: ${res.status} ${await res.text()}`);
      sectionOf.set(((await res.json()) as { id: string }).id, doc.section);
    }
    await emulator.drain();
    const ingestMs = performance.now() - t0;

    const lexicon = await emulator.service.knowledge.lexicons.get(workspaceId);
    // Learning again in this thread, to time it alone (the job ran it in a worker).
    const chunks = await emulator.service.knowledge.index.eligibleChunks(workspaceId, agentId);
    const bySource = new Map<string, string[]>();
    for (const c of chunks) (bySource.get(c.sourceId) ?? bySource.set(c.sourceId, []).get(c.sourceId)!).push(c.text);
    const rows = await emulator.service.db.selectFrom('knowledge_sources').select(['id', 'file_name', 'lang']).where('workspace_id', '=', workspaceId).execute();
    const sources = rows.filter((r) => bySource.has(r.id)).map((r) => ({ chunks: bySource.get(r.id)!, names: r.file_name ? [r.file_name] : [], lang: r.lang as 'en' | 'es' }));
    const c0 = process.cpuUsage().user;
    const w0 = performance.now();
    learnLexicon(sources);
    const learnCpu = (process.cpuUsage().user - c0) / 1000;
    const learnWall = performance.now() - w0;
    const both = new Set<string>();
    const langs = new Map<string, Set<string>>();
    for (const d of docs) langs.set(d.section, (langs.get(d.section) ?? new Set()).add(d.lang));
    for (const [s, l] of langs) if (l.size === 2) both.add(s);
    console.log(
      `${corpus.name}${NEUTRAL ? ' (neutral file names)' : ''}: ${docs.length} documents, ${chunks.length} chunks, ${questions.length} questions (${questions.filter((q) => q.cross).length} cross-language); ` +
        `uploads and drain ${fmt(ingestMs / 1000)} s; lexicon: ${lexicon.learned.twins} twins found (${both.size} sections exist in both files), ${lexicon.learned.units} aligned pieces, ${lexicon.size} pairs; ` +
        `learning again in-process ${fmt(learnWall, 0)} ms (${fmt(learnCpu, 0)} ms CPU)`,
    );

    const outcomes = new Map<Variant, Outcome[]>(VARIANTS.map((v) => [v, []]));
    for (const question of questions) {
      for (const variant of VARIANTS) {
        const result = await emulator.service.retrieval.search(workspaceId, agentId, { query: question.text, topics: [], limit: LIMIT }, {
          refuse: variant.startsWith('answered'),
          expand: variant.endsWith('+lex'),
        });
        const ranked = result.passages.map((p) => sectionOf.get(p.sourceId)!);
        outcomes.get(variant)!.push({ question, rank: rankOf(question, ranked), passages: result.passages.length, sections: distinctSections(ranked) });
      }
    }
    const halves: [string, (q: Question) => boolean][] = corpus.halves
      ? [['tune', (q) => Number(q.id.slice(1)) % 2 === 1], ['test', (q) => Number(q.id.slice(1)) % 2 === 0]]
      : [['all', () => true]];
    console.log(`  MRR@10 ${halves.map(([h]) => `| ${h.padEnd(4)} n  answered  +lex   ranking  +lex  `).join(' ')}`);
    for (const { name, keep } of CATEGORIES) {
      const cells = halves.map(([, inHalf]) => {
        const f = (v: Variant) => figures(outcomes.get(v)!.filter((o) => o.question.kind !== 'no-answer' && keep(o.question) && inHalf(o.question)));
        const [a, al, r, rl] = VARIANTS.map(f);
        return `| ${String(a!.n).padStart(7)}  ${fmt(a!.mrr, 3)}   ${fmt(al!.mrr, 3)}   ${fmt(r!.mrr, 3)}   ${fmt(rl!.mrr, 3)}`;
      });
      console.log(`  ${name.padEnd(24)} ${cells.join(' ')}`);
    }
    for (const variant of ['answered', 'answered+lex'] as const) {
      const list = outcomes.get(variant)!;
      const none = list.filter((o) => o.question.kind === 'no-answer');
      const answerable = list.filter((o) => o.question.kind !== 'no-answer');
      console.log(
        `  ${variant.padEnd(13)} no-answer refused ${none.filter((o) => o.passages === 0).length}/${none.length}; answerable refused ${answerable.filter((o) => o.passages === 0).length}/${answerable.length}`,
      );
    }
    if (process.env.LEXICON_REPORT) {
      const a = outcomes.get('answered')!;
      const b = outcomes.get('answered+lex')!;
      for (let i = 0; i < a.length; i++) {
        if (a[i]!.rank !== b[i]!.rank) console.log(`    ${a[i]!.question.id} ${a[i]!.question.lang}${a[i]!.question.cross ? ' cross' : ''} ${a[i]!.rank} -> ${b[i]!.rank}  ${a[i]!.question.text}`);
      }
    }
  } finally {
    await emulator.close();
  }
}

for (const corpus of CORPORA) {
  if (ONLY && !ONLY.includes(corpus.name)) continue;
  if (!corpus.installed()) {
    console.log(`${corpus.name}: not installed (see bench/relevance/README.md)`);
    continue;
  }
  await measure(corpus);
}
