import type { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import type { QueryBody, QueryResult, SearchInput } from './retrieval.schema.js';
import { ScopeIndexCache, type ScopeIndex } from './retrieval-index.js';
import { detectMessageLanguage } from '../text/detect-language.js';
import { truncatingStem } from '../text/stemmers.js';
import { isChatStopword } from '../text/stopwords.js';
import { termSet } from '../text/terms.js';
import { accentedWords } from '../text/words.js';

/** What retrieval needs of agents: that one exists (else `404 svc.agent.not_found`). */
export interface AgentLookup {
  getAgentOrThrow(workspaceId: string, agentId: string): Promise<unknown>;
}

// Weights of the fused score; they add up to 1 so that the score stays in 0..1.
const W_DENSE = 0.45;
const W_LEXICAL = 0.35;
const W_TOPIC = 0.15;
const W_LANG = 0.05;
// Within the lexical signal: the full-text engine's rank, the share of the query's
// weight (idf) the chunk holds, and the share its source's title holds: a title says
// what a whole document is about.
const LEX_RANK = 0.2;
const LEX_COVERAGE = 0.5;
const LEX_TITLE = 0.3;
/** Below this cosine a chunk is not "found" by vector similarity alone. */
const MIN_DENSE = 0.02;
/** How many nearest chunks the similarity strategy proposes, at least. */
const VECTOR_POOL = 50;
/** A topic's centroid must be at least this close to route a query that names no topic. */
const MIN_CENTROID = 0.25;
const LEXICAL_HITS = 50;
/**
 * A word found in more chunks than this is not sent to the full-text engine: it would
 * have to rank all of them for a word that tells almost nothing (its idf is near zero),
 * and the term coverage already counts it.
 */
const LEXICAL_MAX_DF = 500;

interface Candidate {
  position: number;
  dense: number;
  lexical: number;
  byVector: boolean;
  byTopic: boolean;
}

/**
 * Retrieval over the knowledge index (decisions, D-090 to D-094): two strategies fused into one ranking. Topic
 * routing picks the topics a query is about (named in the request, named by the query's
 * words, or nearest by centroid) and takes their chunks; similarity search takes the
 * chunks nearest to the query's vector, helped by the full-text index where it helps:
 * for the query's selective words, which it finds exactly where a hashed vector blurs. Each candidate's score is a weighted sum of its cosine,
 * its lexical match, whether a routed topic holds it and whether it speaks the query's
 * language.
 */
export class RetrievalService {
  readonly #cache: ScopeIndexCache;

  constructor(private readonly deps: { agents: AgentLookup; knowledge: KnowledgeIndex }) {
    this.#cache = new ScopeIndexCache(deps.knowledge);
  }

  /** `POST /v1/agents/{id}/query`: costs no credit. */
  async query(workspaceId: string, agentId: string, input: QueryBody): Promise<QueryResult> {
    await this.deps.agents.getAgentOrThrow(workspaceId, agentId);
    return this.search(workspaceId, agentId, input);
  }

  /** The ranking itself, for an agent known to exist. */
  async search(workspaceId: string, agentId: string, input: SearchInput): Promise<QueryResult> {
    const index = await this.#cache.get(workspaceId, agentId);
    if (index.size === 0) return { passages: [], strategies: { topics: 0, vector: 0 } };
    const lang = input.lang ?? detectMessageLanguage(input.query);
    const queryTerms = termSet(input.query);
    const requested = new Set(input.topics);
    const eligible = (i: number): boolean => {
      if (requested.size === 0) return true;
      const topics = index.chunks[i]!.topics;
      return topics.length === 0 || topics.some((t) => requested.has(t));
    };

    const [vector] = await this.deps.knowledge.embedder.embed([input.query]);
    const dense = index.similarities(vector!);
    const lexical = await this.#lexical(workspaceId, agentId, index, input.query);
    const routed = this.#route(index, queryTerms, requested, vector!);

    const candidates = new Map<number, Candidate>();
    const add = (position: number): Candidate => {
      let c = candidates.get(position);
      if (!c) candidates.set(position, (c = { position, dense: dense[position]!, lexical: lexical.get(position) ?? 0, byVector: false, byTopic: false }));
      return c;
    };
    const pool = Math.max(input.limit * 4, VECTOR_POOL);
    for (const i of topPositions(dense, pool, (i) => eligible(i) && dense[i]! >= MIN_DENSE)) add(i).byVector = true;
    for (const i of lexical.keys()) if (eligible(i)) add(i).byVector = true;
    for (const topic of routed) {
      const entry = index.topics.get(topic);
      if (!entry) continue;
      const members = entry.members;
      for (const i of topPositions(dense, pool, (i) => eligible(i), members)) add(i).byTopic = true;
      for (const i of members) if (lexical.has(i) && eligible(i)) add(i).byTopic = true;
    }
    for (const c of candidates.values()) {
      if (!c.byTopic && routed.size && index.chunks[c.position]!.topics.some((t) => routed.has(t))) c.byTopic = true;
    }

    const queryWeight = [...queryTerms].reduce((sum, t) => sum + index.idf(t), 0);
    const scored = [...candidates.values()].map((c) => {
      const chunk = index.chunks[c.position]!;
      const titleTerms = index.titleTerms(c.position);
      let held = 0;
      let heldByTitle = 0;
      for (const t of queryTerms) {
        if (titleTerms.has(t)) heldByTitle += index.idf(t);
        if (index.has(t, c.position)) held += index.idf(t);
      }
      const coverage = queryWeight > 0 ? held / queryWeight : 0;
      const titleCoverage = queryWeight > 0 ? heldByTitle / queryWeight : 0;
      const score =
        W_DENSE * Math.max(0, c.dense) +
        W_LEXICAL * (LEX_RANK * c.lexical + LEX_COVERAGE * coverage + LEX_TITLE * titleCoverage) +
        W_TOPIC * (c.byTopic ? 1 : 0) +
        W_LANG * (chunk.lang === lang ? 1 : 0);
      return { c, chunk, score: Math.min(1, Math.max(0, score)) };
    });
    scored.sort((a, b) => b.score - a.score || (a.chunk.chunkId < b.chunk.chunkId ? -1 : 1));
    const top = scored.slice(0, input.limit);
    return {
      passages: top.map(({ chunk, score }) => ({
        sourceId: chunk.sourceId,
        title: chunk.title,
        text: chunk.text,
        score: Math.round(score * 10_000) / 10_000,
        topics: chunk.topics,
        lang: chunk.lang,
        ...(chunk.url !== undefined && { url: chunk.url }),
      })),
      strategies: {
        topics: top.filter((s) => s.c.byTopic).length,
        vector: top.filter((s) => s.c.byVector).length,
      },
    };
  }

  /** Forgets every in-memory index (after a state import). */
  clear(): void {
    this.#cache.clear();
  }

  /** Full-text hits by position, normalised so the best hit is 1. */
  async #lexical(workspaceId: string, agentId: string, index: ScopeIndex, query: string): Promise<Map<number, number>> {
    // Only content words reach the full-text engine, with their singular and plural
    // forms: it matches whole words, and `habitación` should find `habitaciones`.
    const selective = accentedWords(query).filter((w) => {
      if (isChatStopword(w)) return false;
      const df = index.df(truncatingStem(w));
      return df > 0 && df <= LEXICAL_MAX_DF;
    });
    const text = [...new Set(selective.flatMap(numberForms))].join(' ');
    const out = new Map<number, number>();
    if (!text) return out;
    const hits = await this.deps.knowledge.searchLexical(workspaceId, agentId, text, LEXICAL_HITS);
    const best = hits.reduce((m, h) => Math.max(m, h.score), 0);
    if (best <= 0) return out;
    for (const hit of hits) {
      const position = index.position(hit.chunkId);
      if (position !== undefined && hit.score > 0) out.set(position, hit.score / best);
    }
    return out;
  }

  /** The topics a query is routed to. */
  #route(index: ScopeIndex, queryTerms: Set<string>, requested: Set<string>, vector: Float32Array): Set<string> {
    if (requested.size) return new Set([...requested].filter((t) => index.topics.has(t)));
    const named = new Set<string>();
    for (const [topic, entry] of index.topics) if (entry.stems.some((s) => queryTerms.has(s))) named.add(topic);
    if (named.size) return named;
    let best: string | undefined;
    let bestSim = MIN_CENTROID;
    for (const [topic, entry] of index.topics) {
      const sim = dot(entry.centroid, vector);
      if (sim > bestSim) {
        best = topic;
        bestSim = sim;
      }
    }
    return new Set(best ? [best] : []);
  }
}

/** A word with its likely singular and plural (English and Spanish). */
export function numberForms(word: string): string[] {
  if (/\d/.test(word) || word.length < 3) return [word];
  if (word.endsWith('es') && word.length > 4) return [word, word.slice(0, -2), word.slice(0, -1)];
  if (word.endsWith('s') && !word.endsWith('ss')) return [word, word.slice(0, -1)];
  return [word, `${word}s`, `${word}es`];
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * The `k` positions with the highest scores that pass `keep`, best first; over `among`
 * when given, else over every position. A bounded insertion list: linear in practice.
 */
export function topPositions(scores: ArrayLike<number>, k: number, keep: (i: number) => boolean, among?: ArrayLike<number>): number[] {
  const best: number[] = [];
  const n = among ? among.length : scores.length;
  for (let j = 0; j < n; j++) {
    const i = among ? among[j]! : j;
    const s = scores[i]!;
    if (best.length === k && s <= scores[best[k - 1]!]!) continue;
    if (!keep(i)) continue;
    let at = best.length;
    while (at > 0 && scores[best[at - 1]!]! < s) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best;
}
