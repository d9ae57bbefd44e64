import type { KnowledgeIndex } from '../knowledge/knowledge-index.js';
import { HashingEmbedder } from '../knowledge/pipeline/embedder.js';
import type { QueryBody, QueryResult, SearchInput } from './retrieval.schema.js';
import type { ScopeIndex } from './retrieval-index.js';
import { ScopeIndexCache } from './scope-index-cache.js';
import { confidence, SCORE_THRESHOLD } from './confidence.js';
import { questionTerms } from './question-terms.js';
import { topPositions } from './top-positions.js';
import type { LexicalHit, LoneChunks } from './lexical-index.js';
import { DamagedScopeIndex } from './postings-bytes.js';
import { queryWords } from '../text/analyze.js';
import { withoutLinks } from '../text/links.js';
import { withoutMailMarks } from '../text/mail-marks.js';
import type { Lexicon } from '../knowledge/lexicon/lexicon.js';
import { LONE_TRANSLATION_WEIGHT, type LexiconLookup } from './query-expansion.js';

export { topPositions };

/** What retrieval needs of agents: that one exists (else `404 svc.agent.not_found`). */
export interface AgentLookup {
  getAgentOrThrow(workspaceId: string, agentId: string): Promise<unknown>;
}

/** Added to the score of a passage of a routed topic (today's topic weight). */
const TOPIC_BONUS = 0.15;
/** How many chunks each ranking proposes, at least (4 × `limit` when more). */
const POOL = 50;
/** With a plugged embedder: how deep each ranking goes into the fusion. */
const FUSION_DEPTH = 100;
/** Reciprocal rank fusion's constant (the usual 60), for the superseded fusion of D-306. */
const RRF_K = 60;
/** A topic's centroid must be at least this close to route a query that names no topic. */
const MIN_CENTROID = 0.25;

const EMPTY: QueryResult = { passages: [], strategies: { topics: 0, vector: 0 } };

/**
 * How `search` ranks: `refuse: false` also when the evidence is weak; `expand: false`
 * without the lexicon; with a plugged embedder, `vectors: false` by its words alone and
 * `vectors: 'rrf'` by the superseded reciprocal-rank fusion of D-306 (benchmarks compare
 * them with the shipped rule in one run).
 */
export interface SearchOptions {
  refuse?: boolean;
  expand?: boolean;
  vectors?: false | 'rrf';
}

interface Candidate {
  position: number;
  /** 0..1 before the topic bonus: BM25 over the best score the question allows (D-761). */
  base: number;
  /** With a plugged embedder, how near the vectors rank it: 1 for their nearest, 0 past their `FUSION_DEPTH` nearest (D-1219). */
  near?: number;
  byVector: boolean;
  byTopic: boolean;
}

/** A candidate with its chunk and the score it is ranked by (the topic bonus added). */
interface Scored {
  c: Candidate;
  chunk: ReturnType<ScopeIndex['chunk']>;
  score: number;
}

/**
 * Retrieval over the knowledge index (decisions, D-090 to D-094, D-302, D-303, D-760 to
 * D-763, D-990, D-1219). The similarity strategy is a textbook BM25 over the chunks' stored terms
 * (Snowball stems of the chunk's language, k1 1.2, b 0.75; every question word looked
 * up under its stems in both languages, counted once); with a plugged embedder the
 * vectors order only passages of the same evidence and fill in past the words' evidence (D-1219). Topic
 * routing (the request's topics, the topics the question names, or the nearest
 * centroid) adds a bonus to the passages of the routed topics. When the evidence is
 * weak (`confidence`) there are no passages at all: the agent cannot answer yet.
 */
export class RetrievalService {
  readonly #cache: ScopeIndexCache;
  /** Per scope index and lexicon, the chunks whose source has no twin (D-1123). */
  readonly #lone = new WeakMap<ScopeIndex, { lexicon: Lexicon; lone: LoneChunks | undefined }>();

  constructor(
    private readonly deps: {
      agents: AgentLookup;
      knowledge: KnowledgeIndex;
      lexicons?: LexiconLookup | undefined;
      log?: (message: string, error?: unknown) => void;
    },
  ) {
    this.#cache = new ScopeIndexCache(deps.knowledge, undefined, deps.log);
  }

  /** `POST /v1/agents/{id}/query`: costs no credit. */
  async query(workspaceId: string, agentId: string, input: QueryBody): Promise<QueryResult> {
    await this.deps.agents.getAgentOrThrow(workspaceId, agentId);
    return this.search(workspaceId, agentId, input);
  }

  /**
   * The ranking itself, for an agent known to exist. `refuse: false` ranks also when
   * the evidence is weak, `expand: false` without the lexicon (benchmarks measure each
   * step apart).
   */
  async search(workspaceId: string, agentId: string, input: SearchInput, options: SearchOptions = {}): Promise<QueryResult> {
    const index = await this.#cache.get(workspaceId, agentId);
    const lexicon = options.expand === false ? undefined : await this.deps.lexicons?.get(workspaceId);
    try {
      return await this.#rank(index, input, lexicon, await this.#loneChunks(workspaceId, index, lexicon), options);
    } catch (error) {
      // Read back from the store unlike it was written, or replaced meanwhile by a newer
      // version's rows (D-601): the current index, built again from the chunks if need be.
      if (!(error instanceof DamagedScopeIndex)) throw error;
      // Rows of a newer version (another process wrote the scope meanwhile) are no damage: only bytes unlike those written are logged.
      if ((await this.deps.knowledge.version(workspaceId, agentId)) === index.version)
        this.deps.log?.('svc.retrieval: a stored scope index could not be read back whole; it is built again from the chunks', error);
      const rebuilt = await this.#cache.rebuild(workspaceId, agentId, index);
      return this.#rank(rebuilt, input, lexicon, await this.#loneChunks(workspaceId, rebuilt, lexicon), options);
    }
  }

  /**
   * The chunks of `index` whose source has no twin in it (D-1123, D-1124): none found, or
   * only outside this scope (another agent's), where a translation weighs as the word
   * itself; none without a lexicon, with one learned before D-1123 (it names no twins),
   * or when every source has its twin here. Once per index and lexicon: a change of the
   * knowledge or of the scope is a new index.
   */
  async #loneChunks(workspaceId: string, index: ScopeIndex, lexicon: Lexicon | undefined): Promise<LoneChunks | undefined> {
    if (!lexicon?.size || !lexicon.twins || !this.deps.lexicons?.twinsOf) return undefined;
    const known = this.#lone.get(index);
    if (known?.lexicon === lexicon) return known.lone;
    const twins = await this.deps.lexicons.twinsOf(workspaceId, lexicon);
    const inScope = new Set<string>();
    for (let position = 0; position < index.size; position++) inScope.add(index.sourceIdOf(position));
    const twinnedHere = new Set([...inScope].filter((id) => twins.get(id)?.some((twin) => inScope.has(twin))));
    const chunks = new Uint8Array(index.size);
    let any = false;
    for (let position = 0; position < index.size; position++) {
      if (twinnedHere.has(index.sourceIdOf(position))) continue;
      chunks[position] = 1;
      any = true;
    }
    const lone = any ? { chunks, weight: LONE_TRANSLATION_WEIGHT } : undefined;
    this.#lone.set(index, { lexicon, lone });
    return lone;
  }

  async #rank(index: ScopeIndex, input: SearchInput, lexicon: Lexicon | undefined, lone: LoneChunks | undefined, options: SearchOptions): Promise<QueryResult> {
    if (index.size === 0) return EMPTY;
    // A link in the question is cited, not asked about (D-1065); a mail client's footer is no part of it (D-1067).
    const query = withoutMailMarks(withoutLinks(input.query));
    // The question's words, each with the term ids the scope knows it by, then their
    // translations weighing less (D-791): the one step where a query's terms are chosen.
    const { groups, weights, words, unknown, strong, weak, names, language } = questionTerms(index, query, lexicon);
    await index.lexical.load(groups.flat());
    const requested = new Set(input.topics);
    const eligible = (i: number): boolean => {
      if (requested.size === 0) return true;
      const topics = index.topicsOf(i);
      return topics.length === 0 || topics.some((t) => requested.has(t));
    };
    const lexical = index.lexical;
    const fused = options.vectors !== false && !(this.deps.knowledge.embedder instanceof HashingEmbedder);
    const pool = Math.max(input.limit * 4, fused ? FUSION_DEPTH : POOL);
    const { hits, ceiling, most } = lexical.search(groups, pool, eligible, weights, lone);
    const sure = confidence({
      best: hits[0]?.score ?? 0,
      ceiling,
      words,
      unknown,
      strong,
      weak,
      unheldNames: names.filter((name) => !lexical.together(name)).length,
      unseenIdf: lexical.unseenIdf,
      vocabulary: lexical.vocabularySize,
      languageShare: language ? index.languageShare(language) : 1,
    });
    if (sure < 0 && options.refuse !== false) return EMPTY;

    // A plugged embedder is a network client: when it fails, words alone rank (D-306).
    let vector: Promise<Float32Array | undefined> | undefined;
    const embedQuery = () =>
      (vector ??= this.deps.knowledge.embedder.embed([query]).then(
        ([v]) => v,
        (error: unknown) => {
          this.deps.log?.('svc.retrieval: the embedder failed; this query is ranked by its words alone', error);
          return undefined;
        },
      ));
    // A passage's score: its BM25 over the highest BM25 this question could give, every
    // term of it (a word's stems in both languages, D-1042; words the scope never uses at
    // the idf of an unseen term) in one chunk as often as saturation allows. Within 0..1
    // without a cap, so it keeps BM25's order (D-761).
    const highest = lexical.highestScore(most + unknown * lexical.unseenIdf);
    const normalised = (score: number) => score / Math.max(1e-9, highest);
    const queryVector = fused ? await embedQuery() : undefined;
    if (queryVector) await index.loadVectors();
    // What the refusal calls no evidence (a chunk holding under 5% of the question), as a score.
    const floor = normalised(SCORE_THRESHOLD * (ceiling + unknown * lexical.unseenIdf));
    const proposed = !queryVector
      ? hits.map((h) => ({ position: h.position, base: normalised(h.score), byVector: true, byTopic: false }))
      : options.vectors === 'rrf'
        ? this.#fuseByRank(index, hits, queryVector, eligible)
        : this.#fuse(index, hits, queryVector, eligible, normalised, floor);
    const candidates = new Map(proposed.map((c) => [c.position, c]));
    // Topic routing proposes the routed topics' chunks nearest the question, also those
    // that share no word with it; it adds its bonus to every passage of those topics.
    const routed = await this.#route(
      index,
      queryWords(query).flatMap((w) => w.stems),
      requested,
      embedQuery,
    );
    if (routed.size) {
      const query = await embedQuery();
      for (const topic of query ? routed : []) {
        for (const position of await index.nearestMembers(topic, query!, pool, eligible)) {
          if (!candidates.has(position)) candidates.set(position, { position, base: 0, byVector: false, byTopic: true });
        }
      }
      for (const c of candidates.values()) c.byTopic ||= index.topicsOf(c.position).some((t) => routed.has(t));
    }

    const scored = [...candidates.values()].map((c) => ({ c, chunk: index.chunk(c.position), score: Math.min(1, c.base + (c.byTopic ? TOPIC_BONUS : 0)) }));
    // Equal evidence is ordered by the plugged embedder's vectors (D-1219), then by what
    // the passages are, not by chunk ids, which follow the order uploads arrived in
    // (D-1204): the question's language first, the title, then (read only for ties that
    // reach the answer) the text.
    const foreign = (s: Scored) => (language !== undefined && s.chunk.lang !== language ? 1 : 0);
    const tied = (a: Scored, b: Scored) =>
      b.score - a.score ||
      b.c.base - a.c.base ||
      (b.c.near ?? 0) - (a.c.near ?? 0) ||
      foreign(a) - foreign(b) ||
      (a.chunk.title < b.chunk.title ? -1 : a.chunk.title > b.chunk.title ? 1 : 0);
    scored.sort((a, b) => tied(a, b) || a.c.position - b.c.position);
    const top = await this.#passages(index, scored, input.limit, tied);
    const shown = separated(
      top.map((t) => t.score),
      top.map((t) => t.text),
    );
    return {
      passages: top.map(({ chunk, text }, k) => ({
        sourceId: chunk.sourceId,
        title: chunk.title,
        text,
        score: shown[k]!,
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

  /**
   * The first `limit` of `scored` (sorted by `tied`, then position) with their texts, a
   * chunk deleted since the index was built left out. Candidates `tied` calls equal are
   * ordered by text, then position, a run of them that reaches the last place read whole
   * (up to four times `limit`), so that neither their order nor which of them make the
   * answer follows chunk ids (D-1204); exact duplicates keep their position order.
   */
  async #passages(index: ScopeIndex, scored: Scored[], limit: number, tied: (a: Scored, b: Scored) => number): Promise<(Scored & { text: string })[]> {
    let end = Math.min(limit, scored.length);
    while (end > 0 && end < Math.min(scored.length, limit * 4) && tied(scored[end - 1]!, scored[end]!) === 0) end += 1;
    const read = scored.slice(0, end);
    const texts = await index.texts(read.map((s) => s.c.position));
    const withText = read.map((s, k) => ({ ...s, text: texts[k] }));
    withText.sort((a, b) => tied(a, b) || (a.text === b.text ? 0 : (a.text ?? '') < (b.text ?? '') ? -1 : 1) || a.c.position - b.c.position);
    return withText.slice(0, limit).flatMap((s) => (s.text === undefined ? [] : [{ ...s, text: s.text }]));
  }

  /**
   * What its answers for the agent depend on: the scope's knowledge version, and the
   * workspace's lexicon when it has one (a chat answer cached under another is not reused, D-792).
   */
  async version(workspaceId: string, agentId: string): Promise<string> {
    const knowledge = await this.deps.knowledge.version(workspaceId, agentId);
    const lexicon = (await this.deps.lexicons?.print(workspaceId)) ?? '';
    return lexicon ? `${knowledge}+${lexicon}` : knowledge;
  }

  /** Forgets every in-memory index (after a state import). */
  clear(): void {
    this.#cache.clear();
  }

  /**
   * The words decide; the plugged embedder's ranking only orders what they cannot
   * separate and fills in past their evidence (D-990, D-1219). A passage with lexical
   * evidence (a score of at least `floor`) keeps its score; the vectors' closeness
   * (`near`) orders it only among passages of exactly its evidence. Below `floor` (and
   * for a passage the words miss) the score is the mean of the lexical one and `floor`
   * times the vectors' closeness, so every such passage stays under every passage with
   * evidence.
   */
  #fuse(
    index: ScopeIndex,
    hits: LexicalHit[],
    vector: Float32Array,
    eligible: (i: number) => boolean,
    normalised: (score: number) => number,
    floor: number,
  ): Candidate[] {
    const cosine = index.similarities(vector);
    const nearest = topPositions(cosine, FUSION_DEPTH, (i) => eligible(i) && cosine[i]! > 0);
    const closeness = new Map(nearest.map((p, rank) => [p, 1 - rank / FUSION_DEPTH]));
    const base = (score: number, near: number) => (score >= floor ? score : (score + floor * near) / 2);
    const out = new Map<number, Candidate>();
    for (const h of hits) {
      const near = closeness.get(h.position) ?? 0;
      out.set(h.position, { position: h.position, base: base(normalised(h.score), near), near, byVector: true, byTopic: false });
    }
    for (const [position, near] of closeness)
      if (!out.has(position)) out.set(position, { position, base: base(0, near), near, byVector: true, byTopic: false });
    return [...out.values()];
  }

  /**
   * D-306's fusion, superseded by D-990 and kept for the benchmark's comparison
   * (`vectors: 'rrf'`): BM25F's ranking and the embedder's by reciprocal rank (k 60, both
   * lists `FUSION_DEPTH` deep), the fused score over its best possible value.
   */
  #fuseByRank(index: ScopeIndex, hits: LexicalHit[], vector: Float32Array, eligible: (i: number) => boolean): Candidate[] {
    const cosine = index.similarities(vector);
    const nearest = topPositions(cosine, FUSION_DEPTH, (i) => eligible(i) && cosine[i]! > 0);
    const fused = new Map<number, number>();
    const add = (positions: number[]) => positions.forEach((p, rank) => fused.set(p, (fused.get(p) ?? 0) + 1 / (RRF_K + rank + 1)));
    add(hits.map((h) => h.position));
    add(nearest);
    const best = 2 / (RRF_K + 1);
    return [...fused].map(([position, s]) => ({ position, base: s / best, byVector: true, byTopic: false }));
  }

  /** The topics a query is routed to. */
  async #route(index: ScopeIndex, stems: string[], requested: Set<string>, embed: () => Promise<Float32Array | undefined>): Promise<Set<string>> {
    if (requested.size) return new Set([...requested].filter((t) => index.topics.has(t)));
    if (index.topics.size === 0) return new Set();
    const said = new Set(stems);
    const named = new Set<string>();
    for (const [topic, entry] of index.topics) if (entry.stems.some((s) => said.has(s))) named.add(topic);
    if (named.size) return named;
    const vector = await embed();
    if (!vector) return new Set();
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

/** Decimals of a passage's score. */
const SCORE_DECIMALS = 1_000_000;

/**
 * The scores passages show, best first, rounded to 6 decimals: a passage whose score
 * would equal or pass the one above it (a tie of evidence, ordered by chunk id, or two
 * scores within rounding) shows 0.000001 less, so that different passages never tie;
 * exact duplicates (the same text) keep their tie (D-761).
 */
export function separated(scores: readonly number[], texts: readonly string[]): number[] {
  const out: number[] = [];
  const round = (x: number) => Math.round(x * SCORE_DECIMALS) / SCORE_DECIMALS;
  scores.forEach((score, k) => {
    // Under 0.0000005 six decimals say 0: such a score is shown as it is (D-1105).
    let shown = round(score) > 0 || score <= 0 ? round(score) : score;
    const above = out[k - 1]!;
    if (k > 0 && shown >= above && texts[k] !== texts[k - 1]) {
      const step = round(above - 1 / SCORE_DECIMALS);
      // Past the sixth decimal, a millionth less than the score above: never 0 while that is positive.
      shown = step > 0 ? step : Math.max(0, above * (1 - 1 / SCORE_DECIMALS));
    }
    if (k > 0 && texts[k] === texts[k - 1]) shown = Math.min(shown, above);
    out.push(shown);
  });
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}
