import { chunkTerms } from '../../src/knowledge/chunk-terms.js';
import type { IndexedChunk, KnowledgeIndex, LexicalHit } from '../../src/knowledge/knowledge-index.js';
import type { Embedder } from '../../src/knowledge/ports.js';
import { HashingEmbedder } from '../../src/knowledge/pipeline/embedder.js';
import { analyzeChunk, hasHeading } from '../../src/text/analyze.js';
import { accentedWords as words, fold } from '../../src/text/words.js';

/** A small hashed bag-of-words embedder: deterministic, enough to rank test texts. */
export class TestEmbedder implements Embedder {
  readonly id = 'test-bow-64';
  readonly dimensions = 64;
  embeds = 0;

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.embeds += texts.length;
    return texts.map((text) => {
      const v = new Float32Array(this.dimensions);
      for (const w of words(text).map(fold)) {
        let h = 2166136261;
        for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
        v[(h >>> 0) % this.dimensions]! += 1;
      }
      const norm = Math.hypot(...v);
      if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
      return v;
    });
  }
}

/**
 * An in-memory `KnowledgeIndex` for tests of retrieval alone: chunks are added directly,
 * every change bumps the version, and the lexical search counts shared words.
 */
export class MemoryKnowledgeIndex implements KnowledgeIndex {
  /** The built-in embedder by default (retrieval ranks by BM25F alone); another one makes it fuse rankings. */
  constructor(readonly embedder: Embedder = new HashingEmbedder()) {}

  readonly #chunks: { workspaceId: string; chunk: IndexedChunk }[] = [];
  readonly #dictionaries = new Map<string, Map<string, number>>();
  #version = 0;
  eligibleCalls = 0;

  /** Adds a chunk analysed as ingestion would, its terms in the workspace's dictionary. */
  async add(workspaceId: string, chunk: Omit<IndexedChunk, 'vector' | 'tokenCount' | 'chunkId' | 'terms'> & { chunkId?: string }): Promise<IndexedChunk> {
    const [vector] = await this.embedder.embed([`${chunk.title}\n${chunk.text}`]);
    const analysis = analyzeChunk(chunk.text, chunk.title, chunk.lang, hasHeading(chunk.text));
    let dictionary = this.#dictionaries.get(workspaceId);
    if (!dictionary) {
      dictionary = new Map();
      this.#dictionaries.set(workspaceId, dictionary);
    }
    for (const term of analysis.terms) if (!dictionary.has(term)) dictionary.set(term, dictionary.size);
    const full: IndexedChunk = {
      chunkId: chunk.chunkId ?? `chk_${String(this.#chunks.length).padStart(6, '0')}`,
      tokenCount: words(chunk.text).length,
      vector: vector!,
      terms: chunkTerms(analysis, dictionary),
      ...chunk,
    };
    this.#chunks.push({ workspaceId, chunk: full });
    this.#version++;
    return full;
  }

  removeSource(sourceId: string): void {
    for (let i = this.#chunks.length - 1; i >= 0; i--) if (this.#chunks[i]!.chunk.sourceId === sourceId) this.#chunks.splice(i, 1);
    this.#version++;
  }

  async eligibleChunks(workspaceId: string, agentId: string): Promise<IndexedChunk[]> {
    this.eligibleCalls++;
    return this.#eligible(workspaceId, agentId);
  }

  #eligible(workspaceId: string, agentId: string): IndexedChunk[] {
    return this.#chunks.filter((c) => c.workspaceId === workspaceId && (c.chunk.agentId === null || c.chunk.agentId === agentId)).map((c) => c.chunk);
  }

  async dictionary(workspaceId: string): Promise<ReadonlyMap<string, number>> {
    return this.#dictionaries.get(workspaceId) ?? new Map();
  }

  async searchLexical(workspaceId: string, agentId: string, query: string, limit: number): Promise<LexicalHit[]> {
    const wanted = new Set(words(query).map(fold));
    const hits: LexicalHit[] = [];
    for (const chunk of this.#eligible(workspaceId, agentId)) {
      const score = words(chunk.text)
        .map(fold)
        .filter((w) => wanted.has(w)).length;
      if (score > 0) hits.push({ chunkId: chunk.chunkId, score });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }

  async version(): Promise<string> {
    return `v${this.#version}`;
  }
}
