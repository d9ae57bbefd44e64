import { sha256Hex } from '../../platform/crypto.js';
import { analyzeChunk, type ChunkAnalysis, hasHeading } from '../../text/analyze.js';
import type { Language } from '../../text/language.js';
import type { Embedder } from '../ports.js';
import type { DocFormat } from './formats.js';
import { summarizeClaim } from './summary.js';
import { loadTokenizer } from './tokens.js';

export const TITLE_MAX = 120;

export interface DocumentInput {
  kind: 'upload' | 'url';
  format: DocFormat;
  bytes: Uint8Array;
  charset?: string | undefined;
  /** The title the caller gave; else the document's own, else `fallbackTitle`. */
  title?: string | undefined;
  fallbackTitle: string;
  /** An upload's file name: it names the document too (retrieval reads its words). */
  fileName?: string | undefined;
}

export interface IngestedChunk {
  text: string;
  tokenCount: number;
  lang: Language;
  vector: Float32Array;
  /** Its terms for retrieval, still as words (ids are given when it is stored). */
  analysis: ChunkAnalysis;
}

export interface Ingested {
  title: string;
  lang: Language;
  chunks: IngestedChunk[];
  tokenCount: number;
  summary: string;
  /** Changes when the title or the extracted text changes (re-crawls compare it). */
  contentHash: string;
}

/** Embeds with a possibly user-supplied embedder, checking that it kept its promises. */
export async function embedAll(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  const vectors = await embedder.embed(texts);
  if (vectors.length !== texts.length || vectors.some((v) => v.length !== embedder.dimensions || !v.every(Number.isFinite))) {
    throw new Error(`embedder ${embedder.id} returned ${vectors.length} vectors for ${texts.length} texts, or vectors of the wrong size`);
  }
  return vectors;
}

/** What the pipeline derives from a document without the embedder (plus vectors when built in). */
export interface Prepared {
  title: string;
  lang: Language;
  chunks: { text: string; tokenCount: number; analysis: ChunkAnalysis }[];
  tokenCount: number;
  summary: string;
  contentHash: string;
  /** The built-in embedder's vectors, when the worker was asked for them. */
  vectors?: Float32Array[] | undefined;
}

/** The document ingested: vectors from the worker, else from the (user's) embedder. */
export async function finishDocument(prepared: Prepared, embedder: Embedder): Promise<Ingested> {
  const vectors =
    prepared.vectors ??
    (await embedAll(
      embedder,
      prepared.chunks.map((c) => c.text),
    ));
  const { title, lang, tokenCount, summary, contentHash } = prepared;
  return { title, lang, tokenCount, summary, contentHash, chunks: prepared.chunks.map((c, i) => ({ ...c, lang: c.analysis.lang, vector: vectors[i]! })) };
}

/** A claim: one chunk per language, so that it answers questions in either. */
export async function ingestClaim(claim: { es: string; en: string }, title: string, embedder: Embedder): Promise<Ingested> {
  const tokenizer = await loadTokenizer();
  const parts = [
    { text: claim.en, lang: 'en' as const },
    { text: claim.es, lang: 'es' as const },
  ];
  const vectors = await embedAll(
    embedder,
    parts.map((p) => p.text),
  );
  // Each part keeps the language it was given, whatever its words suggest.
  const chunks = parts.map((p, i) => ({
    ...p,
    tokenCount: tokenizer.count(p.text),
    vector: vectors[i]!,
    analysis: analyzeChunk(p.text, title, p.lang, hasHeading(p.text)),
  }));
  return {
    title,
    lang: 'en',
    chunks,
    tokenCount: chunks.reduce((sum, c) => sum + c.tokenCount, 0),
    summary: summarizeClaim(claim.en),
    contentHash: sha256Hex(`${claim.en}\n${claim.es}`),
  };
}
