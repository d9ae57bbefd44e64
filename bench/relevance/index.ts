import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createEmulator } from '../../emulator/emulator.js';
import { fmt, median } from '../support.js';
import { buildBm25 } from './bm25.js';
import { corpusInstalled, INSTALL_HINT, loadCorpus, type CorpusDocument } from './corpus.js';
import { CATEGORIES, distinctSections, figures, rankOf, type Outcome, type Question } from './metrics.js';

const QUESTIONS = new URL('./debian-reference.json', import.meta.url);
/** Passages asked for per question: MRR@10. */
const LIMIT = 10;
/** `BENCH_RELEVANCE_REPORT=file.json` writes every question's ranks, for looking into misses. */
const REPORT = process.env.BENCH_RELEVANCE_REPORT;
/**
 * `html` (default): each section uploaded as an HTML page, as a user would upload the
 * reference. `markdown`: converted to Markdown here and sent to `/v1/knowledge/text`,
 * which skips the emulator's HTML extraction: the two runs tell extraction losses from
 * ranking losses.
 */
const INGEST = process.env.BENCH_RELEVANCE_INGEST === 'markdown' ? 'markdown' : 'html';

interface QuestionFile {
  questions: Question[];
}

function loadQuestions(docs: CorpusDocument[]): Question[] {
  const { questions } = JSON.parse(readFileSync(QUESTIONS, 'utf8')) as QuestionFile;
  const sections = new Map<string, CorpusDocument[]>();
  for (const d of docs) sections.set(d.section, [...(sections.get(d.section) ?? []), d]);
  const problems: string[] = [];
  for (const q of questions) {
    if ((q.kind === 'no-answer') !== (q.relevant.length === 0)) problems.push(`${q.id}: a no-answer question has no relevant section, and only it`);
    for (const s of q.relevant) if (!sections.has(s)) problems.push(`${q.id}: ${s} is not a section of this corpus`);
    // A cross-language question must have no document of its own language holding the
    // answer: an English one only Spanish text (no English original, a translated Spanish
    // file); a Spanish one only English text (Spanish files still wholly or partly English).
    if (q.cross) {
      for (const s of q.relevant) {
        const own = (sections.get(s) ?? []).filter((d) =>
          q.lang === 'en' ? d.lang === 'en' || d.translation === 'none' : d.lang === 'es' && d.translation === 'full',
        );
        if (own.length) problems.push(`${q.id}: marked cross-language, but ${own[0]!.key} has text in the question's language`);
      }
    }
  }
  if (problems.length) throw new Error(`the question set does not fit this corpus (another version of debian-reference?):\n  ${problems.join('\n  ')}`);
  return questions;
}

const pct = (x: number): string => `${fmt(100 * x, 0).padStart(3)}%`;

/**
 * `/query` as it answers (a question refused for weak evidence ranks nothing), the
 * emulator's ranking alone (asked not to refuse), and BM25, which has no threshold.
 */
function printTable(emulator: Outcome[], ranking: Outcome[], baseline: Outcome[]): void {
  console.log('                                   /query as answered     |  ranking alone (no refusal) |  BM25');
  console.log('                              n    top-1  top-3  MRR@10   |  top-1  top-3  MRR@10       |  top-1  top-3  MRR@10');
  for (const { name, keep } of CATEGORIES) {
    const answerable = (list: Outcome[]) => figures(list.filter((o) => o.question.kind !== 'no-answer' && keep(o.question)));
    const [a, r, b] = [answerable(emulator), answerable(ranking), answerable(baseline)];
    console.log(
      `  ${name.padEnd(26)} ${String(a.n).padStart(3)}   ${pct(a.top1)}   ${pct(a.top3)}   ${fmt(a.mrr, 3)}   |   ${pct(r.top1)}   ${pct(r.top3)}   ${fmt(r.mrr, 3)}       |   ${pct(b.top1)}   ${pct(b.top3)}   ${fmt(b.mrr, 3)}`,
    );
  }
}

function printNoAnswer(label: string, outcomes: Outcome[]): void {
  const none = outcomes.filter((o) => o.question.kind === 'no-answer');
  const answerable = outcomes.filter((o) => o.question.kind !== 'no-answer');
  const abstained = none.filter((o) => o.passages === 0).length;
  const answered = answerable.filter((o) => o.passages > 0).length;
  console.log(
    `  ${label.padEnd(9)} no-answer questions given no passages: ${abstained}/${none.length} (${pct(abstained / none.length)}); ` +
      `answerable questions still answered: ${answered}/${answerable.length} (${pct(answered / answerable.length)})`,
  );
}

/**
 * Retrieval quality on real bilingual documentation: the Debian Reference in English and
 * Spanish, one document per section, uploaded as HTML through the API; every labelled
 * question asked through `POST /v1/agents/{id}/query` (limit 10). Prints top-1, top-3
 * and MRR@10 overall and per category, and the no-answer figures, beside Okapi BM25 with
 * Snowball stemming over the same chunks in the same run.
 */
export async function run(): Promise<void> {
  if (!corpusInstalled()) {
    console.log(`skipped: ${INSTALL_HINT}`);
    return;
  }
  const t0 = performance.now();
  const docs = loadCorpus();
  const questions = loadQuestions(docs);
  const count = (lang: string) => docs.filter((d) => d.lang === lang).length;
  const untranslated = docs.filter((d) => d.translation === 'none').length;
  const partial = docs.filter((d) => d.translation === 'partial').length;
  console.log(
    `debian-reference: ${docs.length} section documents (${count('en')} English, ${count('es')} Spanish, of which ${untranslated} still English text and ${partial} partly translated)`,
  );
  const kinds = (k: string) => questions.filter((q) => q.kind === k).length;
  console.log(
    `${questions.length} questions: ${kinds('same-words')} in the documents' words, ${kinds('paraphrased')} paraphrased, ${kinds('no-answer')} with no answer; ` +
      `${questions.filter((q) => q.cross).length} cross-language; ${questions.filter((q) => q.lang === 'es').length} in Spanish`,
  );

  const emulator = await createEmulator({ log: () => {}, jobConcurrency: 1 });
  try {
    const { workspaceId, apiKey } = await emulator.createWorkspace();
    await emulator.updateWorkspace(workspaceId, { rateLimit: { limit: 1_000_000, windowSeconds: 60 }, dailyActivityCap: null });
    const auth = { authorization: `Bearer ${apiKey.secret}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const agentRes = await emulator.request('/v1/agents', {
      method: 'POST', headers: json,
      body: JSON.stringify({ name: 'Debian helper', identity: { businessName: 'Debian Reference', description: 'Answers questions on administering a Debian system.' } }),
    });
    if (agentRes.status !== 201) throw new Error(`agent: ${agentRes.status} ${await agentRes.text()}`);
    const agentId = ((await agentRes.json()) as { id: string }).id;

    const sectionOf = new Map<string, string>();
    const i0 = performance.now();
    const toMarkdown = INGEST === 'markdown' ? await markdownConverter() : undefined;
    const docOf = new Map<string, CorpusDocument>();
    for (const doc of docs) {
      let res: Response;
      if (toMarkdown) {
        const body = JSON.stringify({ title: doc.title.slice(0, 120), text: toMarkdown(doc.html), agentId });
        res = await emulator.request('/v1/knowledge/text', { method: 'POST', headers: json, body });
      } else {
        const form = new FormData();
        form.set('file', new File([doc.html], `${doc.key.replace(/[#@ ]/g, '.')}.html`, { type: 'text/html' }));
        form.set('agentId', agentId);
        res = await emulator.request('/v1/knowledge/uploads', { method: 'POST', headers: auth, body: form });
      }
      if (res.status !== 202) throw new Error(`add ${doc.key}: ${res.status} ${await res.text()}`);
      const id = ((await res.json()) as { id: string }).id;
      sectionOf.set(id, doc.section);
      docOf.set(id, doc);
    }
    await emulator.drain();
    const ingestMs = performance.now() - i0;

    const first = await time(() => ask(questions[0]!.text));
    const chunks = await emulator.service.knowledge.index.eligibleChunks(workspaceId, agentId);
    const failed = await countFailed();
    console.log(`ingested through the API as ${INGEST} in ${fmt(ingestMs / 1000)} s: ${chunks.length} chunks${failed ? `, ${failed} documents FAILED` : ''}`);
    const kept = coverage(docOf, chunks);
    console.log(
      `extraction kept a median ${pct(kept.median)} of a document's words; ${kept.under70} of ${docOf.size} documents lost more than 30% ` +
        '(questions on lost text cannot be found by any ranking)',
    );
    console.log(`first query after ingesting the whole corpus: ${fmt(first.ms, 0)} ms`);

    const mine: Outcome[] = [];
    const ranking: Outcome[] = [];
    const outcome = (question: Question, passages: { sourceId: string }[]): Outcome => {
      const ranked = passages.map((p) => sectionOf.get(p.sourceId)!);
      return { question, rank: rankOf(question, ranked), passages: passages.length, sections: distinctSections(ranked) };
    };
    for (const question of questions) {
      mine.push(outcome(question, question === questions[0] ? first.value : await ask(question.text)));
      const all = await emulator.service.retrieval.search(workspaceId, agentId, { query: question.text, topics: [], limit: LIMIT }, { refuse: false });
      ranking.push(outcome(question, all.passages));
    }

    const b0 = performance.now();
    const chunkSection = new Map(chunks.map((c) => [c.chunkId, sectionOf.get(c.sourceId)!]));
    const search = buildBm25(chunks.map((c) => ({ id: c.chunkId, text: c.text, lang: c.lang })));
    const baseline: Outcome[] = questions.map((question) => {
      const hits = search(question.text, LIMIT);
      const ranked = hits.map((id) => chunkSection.get(id)!);
      return { question, rank: rankOf(question, ranked), passages: hits.length, sections: distinctSections(ranked) };
    });
    const bm25Ms = performance.now() - b0;

    console.log(`retrieval quality (rank of the first relevant section among the sections of the top ${LIMIT} passages):`);
    printTable(mine, ranking, baseline);
    printNoAnswer('emulator', mine);
    printNoAnswer('BM25', baseline);
    const digest = createHash('sha256').update(JSON.stringify(mine.map((o) => [o.rank, o.passages]))).digest('hex').slice(0, 12);
    console.log(`(BM25 built and asked in ${fmt(bm25Ms / 1000)} s; whole run ${fmt((performance.now() - t0) / 1000)} s; ranks digest ${digest}: the same on every run)`);

    if (REPORT) {
      const rows = questions.map((q, i) => ({ id: q.id, lang: q.lang, kind: q.kind, cross: q.cross ?? false, text: q.text, relevant: q.relevant, rank: mine[i]!.rank, unrefusedRank: ranking[i]!.rank, bm25Rank: baseline[i]!.rank, passages: mine[i]!.passages, top: mine[i]!.sections.slice(0, 5), bm25Top: baseline[i]!.sections.slice(0, 5) }));
      writeFileSync(REPORT, JSON.stringify(rows, null, 1));
      console.log(`per-question ranks written to ${REPORT}`);
    }

    async function ask(query: string): Promise<{ sourceId: string }[]> {
      const res = await emulator.request(`/v1/agents/${agentId}/query`, { method: 'POST', headers: json, body: JSON.stringify({ query, limit: LIMIT }) });
      if (res.status !== 200) throw new Error(`query: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { passages: { sourceId: string }[] }).passages;
    }

    async function countFailed(): Promise<number> {
      let failed = 0;
      let after: string | null = null;
      do {
        const res = await emulator.request(`/v1/knowledge/sources?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`, { headers: auth });
        const page = (await res.json()) as { data: { status: string }[]; nextCursor: string | null };
        failed += page.data.filter((s) => s.status !== 'ready').length;
        after = page.nextCursor;
      } while (after);
      return failed;
    }
  } finally {
    await emulator.close();
  }
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Share of each document's words that reach its chunks (capped at 1): median and losers. */
function coverage(docOf: Map<string, CorpusDocument>, chunks: { sourceId: string; text: string }[]): { median: number; under70: number } {
  const chunkWords = new Map<string, number>();
  for (const c of chunks) chunkWords.set(c.sourceId, (chunkWords.get(c.sourceId) ?? 0) + (c.text.match(WORD)?.length ?? 0));
  const shares = [...docOf].map(([id, doc]) => Math.min(1, (chunkWords.get(id) ?? 0) / Math.max(1, doc.text.match(WORD)?.length ?? 0)));
  return { median: median(shares), under70: shares.filter((s) => s < 0.7).length };
}

/** Turndown, as the emulator's own HTML path uses it, for the `markdown` ingest mode. */
async function markdownConverter(): Promise<(html: string) => string> {
  const { default: TurndownService } = await import('turndown');
  const { parseHTML } = await import('linkedom');
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  return (html) => service.turndown(parseHTML(html).document.querySelector('main')!.innerHTML as string);
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}
