import { existsSync, readdirSync, readFileSync, writeFileSync, type Dirent } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCorpus, type CorpusDocument } from '../corpora/reference-reader.js';
import { evaluate } from '../evaluate.js';
import type { Question } from '../metrics.js';

const QUESTIONS = new URL('../corpora/debian-reference.json', import.meta.url);

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

/** The chunks and answers of one ingestion through the API, as the protocol's runner makes them (`../evaluate.ts`). */
async function ingest(key: string, docs: UploadDocument[], questions: Question[]): Promise<Captured> {
  const run = await evaluate({ name: 'capture', role: 'dev', packages: [], installed: () => true, documents: () => docs, questions: () => questions });
  return {
    key,
    chunks: run.chunks.map(({ id, sourceId, section, docLang, lang, title, text }) => ({ id, sourceId, section, docLang, lang, title, text })),
    emulator: run.ours.map((o, i) => ({ id: questions[i]!.id, rank: o.rank, passages: o.passages, sections: o.sections })),
  };
}
