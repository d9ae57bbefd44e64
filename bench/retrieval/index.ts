import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEmulator, type Emulator } from '../../emulator/emulator.js';
type VectorChunk = { chunkId: string; vector: Float32Array };
import { embedText, packVector } from '../../src/knowledge/pipeline/embedder.js';
import type { KnowledgeSourceTable } from '../../src/db/schema/knowledge.js';
import { iso } from '../../src/platform/time.js';
import { fmt, percentile, readySourceRow } from '../support.js';

const SIZES = (process.env.BENCH_RETRIEVAL_SIZES ?? '1000,10000,100000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_RETRIEVAL_QUERIES ?? 200);
const WORDS_PER_CHUNK = 120;
const CHUNKS_PER_SOURCE = 20;
const VOCABULARY = 20_000;
const TOPICS = ['rooms', 'prices', 'spa', 'transport', 'food', 'policies', 'events', 'family'];
const INSERT_BATCH = 500;

/** A small seeded generator (mulberry32): the same corpus and queries every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ba', 'ce', 'di', 'fo', 'gu', 'la', 'me', 'ni', 'po', 'ru', 'sa', 'te', 'vi', 'zo', 'ar', 'en', 'is', 'ol', 'um', 'tra'];
function word(i: number): string {
  let out = '';
  let n = i + 1;
  while (n > 0) {
    out += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return out;
}

/** Words drawn with a Zipf-like law, as in real text: a few are everywhere, most are rare. */
export function zipf(rand: () => number): string {
  return word(Math.floor(VOCABULARY ** rand()) - 1);
}

/**
 * Writes `count` ready chunks straight into the knowledge tables of a workspace, as the
 * ingestion pipeline would leave them (hashed vectors by the knowledge part's own
 * embedder) but without their analysed terms, which the first read then stores: ingesting
 * 100,000 chunks through HTTP would measure ingestion, not retrieval.
 */
export async function seed(emulator: Emulator, workspaceId: string, agentId: string, count: number, rand: () => number): Promise<void> {
  const db = emulator.service.db;
  const embedderId = emulator.service.knowledge.index.embedder.id;
  const now = iso(emulator.clock.now());
  for (let start = 0; start < count; start += INSERT_BATCH) {
    const sources: KnowledgeSourceTable[] = [];
    const chunks: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(count, start + INSERT_BATCH); i++) {
      const sourceIndex = Math.floor(i / CHUNKS_PER_SOURCE);
      const sourceId = `src_bench${String(sourceIndex).padStart(8, '0')}`;
      if (i % CHUNKS_PER_SOURCE === 0) {
        sources.push(
          readySourceRow({
            id: sourceId,
            workspace_id: workspaceId,
            agent_id: sourceIndex % 2 ? agentId : null,
            title: `Document ${sourceIndex}`,
            topics: JSON.stringify(sourceIndex % 3 ? [TOPICS[sourceIndex % TOPICS.length]] : []),
            chunk_count: CHUNKS_PER_SOURCE,
            content_hash: sourceId,
            created_at: now,
          }),
        );
      }
      const text = Array.from({ length: WORDS_PER_CHUNK }, () => zipf(rand)).join(' ');
      chunks.push({
        id: `chk_bench${String(i).padStart(9, '0')}`,
        workspace_id: workspaceId,
        source_id: sourceId,
        agent_id: sourceIndex % 2 ? agentId : null,
        position: i % CHUNKS_PER_SOURCE,
        lang: 'en',
        text,
        token_count: WORDS_PER_CHUNK,
        embedding: packVector(embedText(text)),
        embedder_id: embedderId,
      });
    }
    await db.transaction().execute(async (trx) => {
      if (sources.length)
        await trx
          .insertInto('knowledge_sources')
          .values(sources as never)
          .execute();
      await trx
        .insertInto('knowledge_chunks')
        .values(chunks as never)
        .execute();
    });
  }
}

/**
 * The baseline: one dot product per chunk over the vectors as the knowledge index hands
 * them out, keeping the best `k` as it goes (no sort of the whole corpus).
 */
function bruteForce(chunks: VectorChunk[], query: Float32Array, k: number): string[] {
  const best: { id: string; s: number }[] = [];
  const dims = query.length;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    const v = c.vector;
    let s = 0;
    for (let d = 0; d < dims; d++) s += v[d]! * query[d]!;
    if (best.length === k && s <= best[k - 1]!.s) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.s < s) at--;
    best.splice(at, 0, { id: c.chunkId, s });
    if (best.length > k) best.pop();
  }
  return best.map((x) => x.id);
}

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * Query latency of `RetrievalService.search` (BM25F over the scope's index, topic
 * routing, the confidence) at 1,000, 10,000 and 100,000 chunks, against a brute-force
 * dot product over the same vectors in the same run; and the first query of a scope,
 * which builds its index: with every chunk to analyse (chunks stored without terms, as
 * before issue 14 or after a change of analyzer: today's first query read every chunk's
 * text too), and after a restart, from the scope index the first build stored (D-308, D-600;
 * before it, from the terms ingestion stored).
 */
export async function run(): Promise<void> {
  console.log(`queries of 2 to 5 words, limit 5; ${QUERIES} per size after a warm-up; chunks of ${WORDS_PER_CHUNK} words`);
  console.log('  chunks    query p50   query p99   brute p50   brute p99   p50 ratio   first query: analysing   after restart  after a new source');
  for (const size of SIZES) {
    const rand = random(size);
    const db = join(mkdtempSync(join(tmpdir(), 'svc-bench-')), 'store.db');
    let emulator = await createEmulator({ db, log: () => {} });
    const { workspaceId, apiKey } = await emulator.createWorkspace();
    const agent = await emulator.service.agents.create(workspaceId, { name: 'Bench', identity: { businessName: 'Bench', description: '' } });
    await seed(emulator, workspaceId, agent.id, size, rand);
    const queries = Array.from({ length: QUERIES }, () => Array.from({ length: 2 + Math.floor(rand() * 4) }, () => zipf(rand)).join(' '));
    const search = (query: string) => emulator.service.retrieval.search(workspaceId, agent.id, { query, topics: [], limit: 5 });

    // Seeded chunks carry no terms: the first query analyses and stores them all.
    const analysing = await time(() => search(queries[0]!));
    await emulator.close();
    emulator = await createEmulator({ db, log: () => {} });
    const stored = await time(() => search(queries[0]!));
    for (const q of queries.slice(0, 20)) await search(q);
    const latencies: number[] = [];
    for (const q of queries) latencies.push(await time(() => search(q)));

    // A change of knowledge: one more source through the API, then the next query (the stored index brought up to date, D-610).
    const added = await emulator.request('/v1/knowledge/text', {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'One more', text: queries.slice(0, 50).join('. '), agentId: agent.id }),
    });
    if (added.status !== 202) throw new Error(`knowledge text: ${added.status}`);
    await emulator.drain();
    const rebuild = await time(() => search(queries[1]!));

    const index = emulator.service.knowledge.index;
    // Plain arrays of their own, as a brute-force search would hold them in memory.
    const chunks = (await index.eligibleChunks(workspaceId, agent.id)).map((c) => ({ ...c, vector: Float32Array.from(c.vector) }));
    const vectors = await index.embedder.embed(queries);
    for (const v of vectors.slice(0, 20)) bruteForce(chunks, v, 5);
    const brute: number[] = [];
    // The baseline embeds its query too, as a vector search does.
    for (const q of queries) brute.push(await time(async () => bruteForce(chunks, (await index.embedder.embed([q]))[0]!, 5)));
    await emulator.close();
    rmSync(dirname(db), { recursive: true, force: true });

    const p50 = percentile(latencies, 50);
    const bp50 = percentile(brute, 50);
    console.log(
      `  ${String(size).padStart(7)}   ${fmt(p50, 2).padStart(6)} ms   ${fmt(percentile(latencies, 99), 2).padStart(6)} ms   ` +
        `${fmt(bp50, 2).padStart(6)} ms   ${fmt(percentile(brute, 99), 2).padStart(6)} ms   ${fmt(p50 / bp50, 2).padStart(6)}x     ` +
        `${fmt(analysing, 0).padStart(9)} ms           ${fmt(stored, 0).padStart(6)} ms       ${fmt(rebuild, 0).padStart(6)} ms`,
    );
    if (size === 100_000) {
      console.log(`  target: query p50 under 20 ms at 100,000 chunks: ${p50 < 20 ? 'met' : 'NOT met'}`);
      console.log(`  target: first query after a restart (stored index) under 1 s at 100,000 chunks: ${stored < 1000 ? 'met' : 'NOT met'}`);
      console.log(`  target: first query after a new source, after a restart, under 1 s at 100,000 chunks: ${rebuild < 1000 ? 'met' : 'NOT met'}`);
      // Before issue 14 the first query read every chunk's text and built term sets from it.
      console.log("  today's figure before issue 14: 6.5 s (the issue); main's own bench beside this one on one machine: README, Benchmarks");
    }
  }
}
