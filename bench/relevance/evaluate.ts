import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
import type { Embedder } from '../../src/knowledge/ports.js';
import { buildBm25 } from './bm25.js';
import type { Corpus, UploadDocument } from './corpora/corpus.js';
import { distinctSections, rankOf, type Outcome, type Question } from './metrics.js';

/** Passages asked for per question: MRR@10. */
export const LIMIT = 10;

/** One chunk as the emulator made it, with the section and file its document came from. */
export interface CapturedChunk {
  id: string;
  sourceId: string;
  section: string;
  docLang: 'en' | 'es';
  lang: 'en' | 'es';
  title: string;
  filename: string;
  text: string;
}

export interface CorpusRun {
  corpus: Corpus;
  documents: number;
  chunks: CapturedChunk[];
  failed: number;
  ingestMs: number;
  firstQueryMs: number;
  questions: Question[];
  /** `/query` as it answers (a refused question ranks nothing). */
  ours: Outcome[];
  /** The same ranking asked not to refuse. */
  alone: Outcome[];
  /** BM25 with Snowball stems over the same chunks, same run. */
  bm25: Outcome[];
  /** With an embedder: the same `/query` ranking by its words alone, and fused by D-306's reciprocal rank (as answered). */
  fusion?: { lexical: Outcome[]; rrf: Outcome[] };
  /** Every passage score `/query` returned, per question (ours), to check their order. */
  scores: number[][];
  /** The same ranking without its refusal: each question's passage scores (a refused question's too). */
  aloneScores: number[][];
  /** Per question, the texts of the returned passages (to tell exact duplicates). */
  texts: string[][];
}

/** Only the operator's lines on a document that failed for no reason of its own (an embedder's error, a bug): the rest is noise here. */
function ingestionLog(message: string, error?: unknown): void {
  if (/^ingestion of /.test(message)) console.log(`  ${message}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
}

/** A corpus as ingested, for an experiment that asks more of it before the emulator closes. */
export interface Ingested {
  emulator: Emulator;
  workspaceId: string;
  agentId: string;
  questions: Question[];
  chunks: CapturedChunk[];
}

/**
 * Ingests one corpus through the API (each document uploaded as an HTML file, as a
 * user would), asks every question through `POST /v1/agents/{id}/query` (limit 10), the
 * same ranking without its refusal, and BM25 over the emulator's own chunks.
 * `BENCH_RELEVANCE_CHUNKS=dir` also writes the chunks there (`<corpus>.chunks.json`), a blind corpus's excepted.
 */
export async function evaluate(corpus: Corpus, options: { embedder?: Embedder; inspect?: (ingested: Ingested) => Promise<void> } = {}): Promise<CorpusRun> {
  const docs = corpus.documents();
  const questions = corpus.questions(docs);
  const emulator = await createEmulator({ log: ingestionLog, jobConcurrency: 1, ...(options.embedder && { embedder: options.embedder }) });
  try {
    const { workspaceId, apiKey } = await emulator.createWorkspace();
    await emulator.updateWorkspace(workspaceId, { rateLimit: { limit: 1_000_000, windowSeconds: 60 }, dailyActivityCap: null });
    const auth = { authorization: `Bearer ${apiKey.secret}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const agentRes = await emulator.request('/v1/agents', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'Debian helper', identity: { businessName: 'Debian documentation', description: 'Answers questions on Debian.' } }),
    });
    if (agentRes.status !== 201) throw new Error(`agent: ${agentRes.status} ${await agentRes.text()}`);
    const agentId = ((await agentRes.json()) as { id: string }).id;

    const docOf = new Map<string, UploadDocument>();
    const i0 = performance.now();
    for (const doc of docs) {
      const form = new FormData();
      form.set('file', new File([doc.html], doc.filename, { type: 'text/html' }));
      form.set('agentId', agentId);
      const res = await emulator.request('/v1/knowledge/uploads', { method: 'POST', headers: auth, body: form });
      if (res.status !== 202) throw new Error(`add ${doc.key}: ${res.status} ${await res.text()}`);
      docOf.set(((await res.json()) as { id: string }).id, doc);
    }
    await emulator.drain();
    const ingestMs = performance.now() - i0;
    // A document that did not become ready is named with its reason: a time limit under
    // load and an embedder that failed are not the same finding.
    for (const [id, doc] of docOf) {
      const res = await emulator.request(`/v1/knowledge/sources/${id}`, { headers: auth });
      const source = (await res.json()) as { status?: string; error?: string };
      if (source.status !== 'ready') console.log(`  ${corpus.name}: ${doc.key} is ${source.status}${source.error ? `: ${source.error}` : ''}`);
    }

    const ask = async (query: string) => {
      const res = await emulator.request(`/v1/agents/${agentId}/query`, { method: 'POST', headers: json, body: JSON.stringify({ query, limit: LIMIT }) });
      if (res.status !== 200) throw new Error(`query: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { passages: { sourceId: string; score: number; text: string }[] }).passages;
    };
    const f0 = performance.now();
    const firstAnswer = await ask(questions[0]!.text);
    const firstQueryMs = performance.now() - f0;

    const outcome = (question: Question, sourceIds: string[]): Outcome => {
      const ranked = sourceIds.map((id) => docOf.get(id)!.section);
      return { question, rank: rankOf(question, ranked), passages: sourceIds.length, sections: distinctSections(ranked) };
    };
    const ours: Outcome[] = [];
    const alone: Outcome[] = [];
    const fusion = options.embedder ? { lexical: [] as Outcome[], rrf: [] as Outcome[] } : undefined;
    const scores: number[][] = [];
    const aloneScores: number[][] = [];
    const texts: string[][] = [];
    for (const question of questions) {
      const passages = question === questions[0] ? firstAnswer : await ask(question.text);
      ours.push(
        outcome(
          question,
          passages.map((p) => p.sourceId),
        ),
      );
      scores.push(passages.map((p) => p.score));
      texts.push(passages.map((p) => p.text));
      const all = await emulator.service.retrieval.search(workspaceId, agentId, { query: question.text, topics: [], limit: LIMIT }, { refuse: false });
      aloneScores.push(all.passages.map((p) => p.score));
      alone.push(
        outcome(
          question,
          all.passages.map((p) => p.sourceId),
        ),
      );
      if (fusion) {
        const input = { query: question.text, topics: [], limit: LIMIT };
        for (const vectors of [false, 'rrf'] as const) {
          const answer = await emulator.service.retrieval.search(workspaceId, agentId, input, { vectors });
          fusion[vectors ? 'rrf' : 'lexical'].push(
            outcome(
              question,
              answer.passages.map((p) => p.sourceId),
            ),
          );
        }
      }
    }

    const indexed = await emulator.service.knowledge.index.eligibleChunks(workspaceId, agentId);
    const chunks: CapturedChunk[] = indexed
      .map((c) => {
        const doc = docOf.get(c.sourceId)!;
        return {
          id: c.chunkId,
          sourceId: c.sourceId,
          section: doc.section,
          docLang: doc.lang,
          lang: c.lang,
          title: c.title,
          filename: doc.filename,
          text: c.text,
        };
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const sectionOf = new Map(chunks.map((c) => [c.id, c.section]));
    const search = buildBm25(chunks.map((c) => ({ id: c.id, text: c.text, lang: c.lang })));
    const bm25 = questions.map((question) => {
      const hits = search(question.text, LIMIT);
      const ranked = hits.map((id) => sectionOf.get(id)!);
      return { question, rank: rankOf(question, ranked), passages: hits.length, sections: distinctSections(ranked) };
    });
    const failed = docs.length - new Set(indexed.map((c) => c.sourceId)).size;
    await options.inspect?.({ emulator, workspaceId, agentId, questions, chunks });
    const dir = process.env.BENCH_RELEVANCE_CHUNKS;
    // A blind corpus is never captured: the experiments replay every capture, and a blind
    // corpus runs once per final candidate, through this bench (bench/relevance/README.md).
    if (dir && corpus.role !== 'blind') {
      // A missing folder used to throw after the whole corpus had been ingested and asked.
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${corpus.name}.chunks.json`), JSON.stringify({ chunks, questions }));
    }
    return {
      corpus,
      documents: docs.length,
      chunks,
      failed,
      ingestMs,
      firstQueryMs,
      questions,
      ours,
      alone,
      bm25,
      scores,
      aloneScores,
      texts,
      ...(fusion && { fusion }),
    };
  } finally {
    await emulator.close();
  }
}
