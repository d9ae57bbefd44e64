import { existsSync, readdirSync, readFileSync, writeFileSync, type Dirent } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEmulator } from '../../../emulator/emulator.js';
import { loadCorpus, type CorpusDocument } from '../corpora/reference-reader.js';
import { distinctSections, rankOf, type Question } from '../metrics.js';

const QUESTIONS = new URL('../corpora/debian-reference.json', import.meta.url);
const LIMIT = 10;

/** One chunk as the emulator produced it, with the section its document came from. */
export interface Chunk {
  id: string;
  sourceId: string;
  section: string;
  /** The language of the file the document came from (not of the chunk's text). */
  docLang: 'en' | 'es';
  /** The language the emulator gave the chunk (its source's, by detection). */
  lang: 'en' | 'es';
  title: string;
  text: string;
}

/** What the emulator's own `/query` answered for one question. */
export interface EmulatorAnswer {
  id: string;
  rank: number;
  passages: number;
  sections: string[];
  ms: number;
}

export interface Captured {
  key: string;
  chunks: Chunk[];
  emulator: EmulatorAnswer[];
}

export function loadQuestions(): Question[] {
  return (JSON.parse(readFileSync(QUESTIONS, 'utf8')) as { questions: Question[] }).questions;
}

/**
 * The emulator's chunks of the whole corpus and its answers to every question, from a
 * cache file when one matches the corpus, the questions and the sources of `src/`
 * (`BENCH_RELEVANCE_FRESH=1` ignores it): ingestion takes 20 to 60 s, an experiment a few.
 */
export async function capture(questions: Question[], docs: UploadDocument[] = referenceDocuments()): Promise<Captured> {
  const key = createHash('sha256')
    .update(JSON.stringify(docs.map((d) => [d.key, d.html.length])))
    .update(JSON.stringify(questions))
    .update(srcDigest())
    .digest('hex')
    .slice(0, 16);
  const file = join(process.env.BENCH_RELEVANCE_CACHE ?? tmpdir(), `svc-relevance-${key}.json`);
  if (!process.env.BENCH_RELEVANCE_FRESH && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Captured;
  const captured = await ingest(key, docs, questions);
  writeFileSync(file, JSON.stringify(captured));
  return captured;
}

/** A digest of the emulator's sources: a change of `src/` invalidates the cache. */
function srcDigest(): string {
  const hash = createHash('sha256');
  const root = new URL('../../../src/', import.meta.url);
  const walk = (dir: URL): void => {
    for (const entry of readdirSorted(dir)) {
      const url = new URL(entry.name + (entry.isDirectory() ? '/' : ''), dir);
      if (entry.isDirectory()) walk(url);
      else hash.update(entry.name).update(readFileSync(url));
    }
  };
  walk(root);
  return hash.digest('hex');
}

function readdirSorted(dir: URL): Dirent[] {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
}

export type { UploadDocument } from '../corpora/pages.js';
import type { UploadDocument } from '../corpora/pages.js';

/** The Debian Reference, uploaded as `bench/relevance` does. */
export function referenceDocuments(): UploadDocument[] {
  return loadCorpus().map((d: CorpusDocument) => ({ key: d.key, section: d.section, lang: d.lang, html: d.html, filename: `${d.key.replace(/[#@ ]/g, '.')}.html` }));
}

async function ingest(key: string, docs: UploadDocument[], questions: Question[]): Promise<Captured> {
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
    const agentId = ((await agentRes.json()) as { id: string }).id;
    const docOf = new Map<string, UploadDocument>();
    for (const doc of docs) {
      const form = new FormData();
      form.set('file', new File([doc.html], doc.filename, { type: 'text/html' }));
      form.set('agentId', agentId);
      const res = await emulator.request('/v1/knowledge/uploads', { method: 'POST', headers: auth, body: form });
      if (res.status !== 202) throw new Error(`add ${doc.key}: ${res.status} ${await res.text()}`);
      docOf.set(((await res.json()) as { id: string }).id, doc);
    }
    await emulator.drain();
    const answers: EmulatorAnswer[] = [];
    for (const q of questions) {
      const t0 = performance.now();
      const res = await emulator.request(`/v1/agents/${agentId}/query`, { method: 'POST', headers: json, body: JSON.stringify({ query: q.text, limit: LIMIT }) });
      const { passages } = (await res.json()) as { passages: { sourceId: string }[] };
      const ms = performance.now() - t0;
      const ranked = passages.map((p) => docOf.get(p.sourceId)!.section);
      answers.push({ id: q.id, rank: rankOf(q, ranked), passages: passages.length, sections: distinctSections(ranked), ms });
    }
    const indexed = await emulator.service.knowledge.index.eligibleChunks(workspaceId, agentId);
    const chunks: Chunk[] = indexed
      .map((c) => {
        const doc = docOf.get(c.sourceId)!;
        return { id: c.chunkId, sourceId: c.sourceId, section: doc.section, docLang: doc.lang, lang: c.lang, title: c.title, text: c.text };
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { key, chunks, emulator: answers };
  } finally {
    await emulator.close();
  }
}
