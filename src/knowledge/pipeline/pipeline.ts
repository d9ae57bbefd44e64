import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { sha256Hex } from '../../platform/crypto.js';
import type { Embedder } from '../knowledge-index.js';
import { chunkMarkdown } from './chunk.js';
import { extractText } from './extract.js';
import type { DocFormat } from './formats.js';
import { IngestError } from './ingest-error.js';
import { detectLanguage, type Lang } from './language.js';
import { summarize, summarizeClaim } from './summary.js';
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
}

export interface IngestedChunk {
  text: string;
  tokenCount: number;
  lang: Lang;
  vector: Float32Array;
}

export interface Ingested {
  title: string;
  lang: Lang;
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

/**
 * The whole pipeline for one document: text extraction, language, chunks with token
 * counts, vectors and the index card. Pure apart from the embedder: the same input
 * gives the same output on every run.
 */
export async function ingestDocument(input: DocumentInput, embedder: Embedder): Promise<Ingested> {
  const tokenizer = await loadTokenizer();
  const { text, title: found } = await extractText(input.format, input.bytes, input.charset);
  const title = (input.title ?? found ?? input.fallbackTitle).slice(0, TITLE_MAX);
  const lang = detectLanguage(text);
  // Long documents are CPU work: let requests in between the steps.
  await yieldToEventLoop();
  const chunks = await chunkMarkdown(text, tokenizer);
  if (chunks.length === 0) throw new IngestError('unsupported_document', 'no chunks');
  await yieldToEventLoop();
  const vectors = await embedAll(embedder, chunks.map((c) => c.text));
  return {
    title,
    lang,
    chunks: chunks.map((c, i) => ({ ...c, lang, vector: vectors[i]! })),
    tokenCount: tokenizer.count(text),
    summary: summarize({ kind: input.kind, format: input.format, title, lang, text }),
    contentHash: sha256Hex(`${title}\n${text}`),
  };
}

/** A claim: one chunk per language, so that it answers questions in either. */
export async function ingestClaim(claim: { es: string; en: string }, title: string, embedder: Embedder): Promise<Ingested> {
  const tokenizer = await loadTokenizer();
  const parts = [
    { text: claim.en, lang: 'en' as const },
    { text: claim.es, lang: 'es' as const },
  ];
  const vectors = await embedAll(embedder, parts.map((p) => p.text));
  const chunks = parts.map((p, i) => ({ ...p, tokenCount: tokenizer.count(p.text), vector: vectors[i]! }));
  return {
    title,
    lang: 'en',
    chunks,
    tokenCount: chunks.reduce((sum, c) => sum + c.tokenCount, 0),
    summary: summarizeClaim(claim.en),
    contentHash: sha256Hex(`${claim.en}\n${claim.es}`),
  };
}
