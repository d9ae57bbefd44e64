/**
 * Issue 25, round 4: variants of a plain BM25 over the emulator's own chunks, beside the
 * wink-bm25-text-search baseline, on every corpus whose chunks `npm run bench --
 * relevance` wrote (`BENCH_RELEVANCE_CHUNKS=dir`). Each variant changes one thing of the
 * baseline's analysis or scoring, so what each costs or gains is seen per corpus.
 *
 *   BENCH_RELEVANCE_CHUNKS=/tmp/rel npm run bench -- relevance      # once: ingest, write chunks
 *   BENCH_RELEVANCE_CHUNKS=/tmp/rel node --import tsx bench/relevance/experiments/variants.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stemmer as oramaEnglish } from '@orama/stemmers/english';
import { stemmer as spanishStemmer } from '@orama/stemmers/spanish';
import { eng, spa } from 'stopword';
import porter2 from 'wink-porter2-stemmer';
import { fmt } from '../../support.js';
import { buildBm25 } from '../bm25.js';
import type { CapturedChunk } from '../evaluate.js';
import { capturedCorpora } from './captures.js';
import { distinctSections, figures, rankOf, type Outcome, type Question } from '../metrics.js';
import { blockLanguage, textBlocks, titleText } from '../../../src/text/analyze.js';
import { SEARCH_STOPWORDS } from '../../../src/text/search-words.js';

const DIR = process.env.BENCH_RELEVANCE_CHUNKS ?? '/tmp/rel';
const LIMIT = 10;

export interface Variant {
  name: string;
  stop: 'pkg' | 'ours' | 'pkg+fillers';
  en: 'porter2' | 'orama';
  lang: 'chunk' | 'block';
  fold: boolean;
  query: 'sum' | 'max';
  title: 'none' | 'body' | 'missing' | 'headless' | 'headless-doc' | 'head2' | 'head2+file';
  singles: boolean;
  k1: number;
  b: number;
  /** Keep only the words the question repeats? no: `dedupe` of stems across both stemmers. */
  round4: boolean;
}

const BASE: Variant = {
  name: 'faithful BM25 (mine)',
  stop: 'pkg',
  en: 'porter2',
  lang: 'chunk',
  fold: false,
  query: 'sum',
  title: 'none',
  singles: true,
  k1: 1.2,
  b: 0.75,
  round4: true,
};

const PKG: ReadonlySet<string> = new Set([...eng, ...spa].map((w) => w.toLowerCase()));
const FILLERS =
  'how what which why when where who whom whose can could would should do does did get make want need way ways use using possible anything something someone thing things instead also just still even really without right como que cual cuales por donde cuando quien puedo puede pueden hago hacer haga quiero necesito forma manera usar uso algo alguien cosa cosas mismo tambien solo aun sin bien debo deberia tengo tiene hay'.split(
    ' ',
  );
const PKG_FILLERS: ReadonlySet<string> = new Set([...PKG, ...FILLERS, ...FILLERS.map((w) => w)]);
const foldWord = (w: string) =>
  w
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

function analyser(v: Variant) {
  const isStop = (w: string) => {
    if (v.stop === 'pkg') return PKG.has(w);
    if (v.stop === 'pkg+fillers') return PKG_FILLERS.has(w) || PKG_FILLERS.has(foldWord(w));
    return SEARCH_STOPWORDS.has(foldWord(w));
  };
  const tokens = (text: string) =>
    (
      text
        .normalize('NFC')
        .toLowerCase()
        .match(/[\p{L}\p{N}]+/gu) ?? []
    ).filter((w) => !isStop(w) && (v.singles || w.length > 1 || /\d/.test(w)));
  const cache = { en: new Map<string, string>(), es: new Map<string, string>() };
  const stem = (w: string, lang: 'en' | 'es') => {
    let s = cache[lang].get(w);
    if (s === undefined) {
      s = lang === 'en' ? (v.en === 'porter2' ? porter2(w) : oramaEnglish(w)) : spanishStemmer(w);
      if (v.fold) s = foldWord(s);
      cache[lang].set(w, s);
    }
    return s;
  };
  return { tokens, stem };
}

interface Doc {
  body: Map<string, number>;
  head: Map<string, number>;
  bodyLength: number;
  headLength: number;
}

function bagOf(v: Variant, a: ReturnType<typeof analyser>, c: CapturedChunk, headedSources?: ReadonlySet<string>): Doc {
  const body = new Map<string, number>();
  const head = new Map<string, number>();
  let bodyLength = 0;
  let headLength = 0;
  const add = (stems: string[], field: 'body' | 'head') => {
    const m = field === 'body' ? body : head;
    for (const s of stems) m.set(s, (m.get(s) ?? 0) + 1);
    if (field === 'body') bodyLength += stems.length;
    else headLength += stems.length;
  };
  const headed = v.title.startsWith('head2');
  if (v.lang === 'chunk') {
    if (headed) {
      for (const b of textBlocks(c.text, c.lang))
        add(
          a.tokens(b.text).map((w) => a.stem(w, c.lang)),
          b.heading ? 'head' : 'body',
        );
    } else
      add(
        a.tokens(c.text).map((w) => a.stem(w, c.lang)),
        'body',
      );
  } else {
    for (const b of textBlocks(c.text, c.lang))
      add(
        a.tokens(b.text).map((w) => a.stem(w, b.lang)),
        headed && b.heading ? 'head' : 'body',
      );
  }
  const titles = [titleText(c.title), ...(v.title === 'head2+file' ? [titleText(c.filename)] : [])].filter(Boolean);
  for (const t of new Set(titles)) {
    const lang = v.lang === 'block' ? blockLanguage(t, c.lang) : c.lang;
    const stems = a.tokens(t).map((w) => a.stem(w, lang));
    if (v.title === 'body') add(stems, 'body');
    else if (v.title === 'missing')
      add(
        stems.filter((s) => !body.has(s)),
        'body',
      );
    else if (v.title === 'headless' && !/^\s{0,3}#{1,6}\s/m.test(c.text)) add(stems, 'body');
    else if (v.title === 'headless-doc' && !headedSources?.has(c.sourceId)) add(stems, 'body');
    else if (headed) add(stems, 'head');
  }
  return { body, head, bodyLength, headLength };
}

export function buildVariant(v: Variant, chunks: CapturedChunk[]): (query: string, k: number) => number[] {
  const a = analyser(v);
  const headedSources = new Set(chunks.filter((c) => /^\s{0,3}#{1,6}\s/m.test(c.text)).map((c) => c.sourceId));
  const docs = chunks.map((c) => bagOf(v, a, c, headedSources));
  const n = docs.length;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set([...d.body.keys(), ...d.head.keys()])) df.set(t, (df.get(t) ?? 0) + 1);
  const avgB = docs.reduce((s, d) => s + d.bodyLength, 0) / n || 1;
  const avgH = docs.reduce((s, d) => s + d.headLength, 0) / n || 1;
  const postings = new Map<string, number[]>();
  docs.forEach((d, i) => {
    for (const t of new Set([...d.body.keys(), ...d.head.keys()])) {
      let l = postings.get(t);
      if (!l) {
        l = [];
        postings.set(t, l);
      }
      l.push(i);
    }
  });
  const idf = (t: string) => Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
  const termScore = (t: string, i: number) => {
    const d = docs[i]!;
    const nb = 1 - v.b + (v.b * d.bodyLength) / avgB;
    const nh = 1 - v.b + (v.b * d.headLength) / avgH;
    const tf = (d.body.get(t) ?? 0) / nb + (v.title.startsWith('head2') ? (2 * (d.head.get(t) ?? 0)) / nh : 0);
    const s = (idf(t) * tf * (v.k1 + 1)) / (v.k1 + tf);
    return v.round4 ? Number(s.toFixed(4)) : s;
  };
  return (query, k) => {
    const words = [...new Set(a.tokens(query))];
    // A stem an earlier word brought counts once (as in a bag of stems), as src does.
    const taken = new Set<string>();
    const groups = words.map((w) => {
      const fresh = [...new Set([a.stem(w, 'en'), a.stem(w, 'es')])].filter((s) => df.has(s) && !taken.has(s));
      for (const t of fresh) taken.add(t);
      return fresh;
    });
    const total = new Map<number, number>();
    if (v.query === 'sum') {
      for (const t of new Set(groups.flat())) for (const i of postings.get(t)!) total.set(i, (total.get(i) ?? 0) + termScore(t, i));
    } else {
      for (const g of groups) {
        const best = new Map<number, number>();
        for (const t of g) for (const i of postings.get(t)!) best.set(i, Math.max(best.get(i) ?? 0, termScore(t, i)));
        for (const [i, s] of best) total.set(i, (total.get(i) ?? 0) + s);
      }
    }
    return [...total]
      .sort((x, y) => y[1] - x[1] || (chunks[x[0]]!.id < chunks[y[0]]!.id ? -1 : 1))
      .slice(0, k)
      .map(([i]) => i);
  };
}

/** Every corpus captured in `dir` but the blind ones (`capturedCorpora`). */
export function load(dir = DIR): { name: string; chunks: CapturedChunk[]; questions: Question[] }[] {
  return capturedCorpora(dir).map((name) => ({
    name,
    ...(JSON.parse(readFileSync(join(dir, `${name}.chunks.json`), 'utf8')) as { chunks: CapturedChunk[]; questions: Question[] }),
  }));
}

export function outcomes(questions: Question[], chunks: CapturedChunk[], rank: (q: string, k: number) => number[]): Outcome[] {
  return questions.map((question) => {
    const ranked = rank(question.text, LIMIT).map((i) => chunks[i]!.section);
    return { question, rank: rankOf(question, ranked), passages: ranked.length, sections: distinctSections(ranked) };
  });
}

export function cells(o: Outcome[]): string {
  const ans = o.filter((x) => x.question.kind !== 'no-answer');
  const all = figures(ans).mrr;
  const own = figures(ans.filter((x) => x.question.kind === 'same-words')).mrr;
  const para = figures(ans.filter((x) => x.question.kind === 'paraphrased')).mrr;
  const cross = figures(ans.filter((x) => x.question.cross)).mrr;
  return `${fmt(all, 3)} ${fmt(own, 3)} ${fmt(para, 3)} ${fmt(cross, 3)}`;
}

export const VARIANTS: Variant[] = [
  BASE,
  { ...BASE, name: 'no 4-decimal rounding', round4: false },
  { ...BASE, name: 'orama Porter (not Porter2)', en: 'orama' },
  { ...BASE, name: 'folded stems', fold: true },
  { ...BASE, name: 'stems max per word', query: 'max' },
  { ...BASE, name: 'block language', lang: 'block' },
  { ...BASE, name: 'stop: + question fillers', stop: 'pkg+fillers' },
  { ...BASE, name: 'stop: ours (src)', stop: 'ours' },
  { ...BASE, name: 'no single letters', singles: false },
  { ...BASE, name: 'title in body', title: 'body' },
  { ...BASE, name: 'title words missing from text', title: 'missing' },
  { ...BASE, name: 'headings+title x2 (BM25F)', title: 'head2' },
  { ...BASE, name: 'headings+title+file x2 (main)', title: 'head2+file' },
  { ...BASE, name: 'max+fold', query: 'max', fold: true },
  { ...BASE, name: 'max+fold+title if no heading', query: 'max', fold: true, title: 'headless' },
  { ...BASE, name: 'fold+title if the document has no heading', fold: true, title: 'headless-doc' },
  { ...BASE, name: 'max+fold+title if the document has no heading', query: 'max', fold: true, title: 'headless-doc' },
  { ...BASE, name: 'max+fold+title missing words', query: 'max', fold: true, title: 'missing' },
  { ...BASE, name: 'max+fold+fillers', query: 'max', fold: true, stop: 'pkg+fillers' },
  { ...BASE, name: 'max+fold+no singles', query: 'max', fold: true, singles: false },
  { ...BASE, name: 'max+fold+block', query: 'max', fold: true, lang: 'block' },
  { ...BASE, name: 'max+fold+fillers+no singles', query: 'max', fold: true, stop: 'pkg+fillers', singles: false },
  { ...BASE, name: 'max+fold k1 0.9 b 0.4', query: 'max', fold: true, k1: 0.9, b: 0.4 },
  { ...BASE, name: 'max+fold k1 1.5', query: 'max', fold: true, k1: 1.5 },
  ...[0.9, 1.2, 1.5, 1.8, 2.1].flatMap((k1) =>
    [0.6, 0.75, 0.9].map((b) => ({ ...BASE, name: `grid max+fold k1 ${k1} b ${b}`, query: 'max' as const, fold: true, k1, b })),
  ),
  { ...BASE, name: 'main analysis, BM25F', title: 'head2+file', lang: 'block', fold: true, query: 'max', stop: 'ours', en: 'orama', singles: false },
];

/** The hotel fixture of test/agents/relevance.test.ts: top-1 of its 48 queries, each document one chunk. */
function hotel(v: Variant | 'bm25'): string {
  const read = (name: string) => JSON.parse(readFileSync(new URL(`../../../test/fixtures/relevance/${name}`, import.meta.url), 'utf8'));
  const docs = (read('documents.json').documents as { id: string; owner: string; lang: 'en' | 'es'; title: string; text: string }[]).filter(
    (d) => d.owner !== 'other',
  );
  const queries = read('queries.json').queries as { query: string; expected: string }[];
  const chunks: CapturedChunk[] = docs.map((d) => ({
    id: d.id,
    sourceId: d.id,
    section: d.id,
    docLang: d.lang,
    lang: d.lang,
    title: d.title,
    filename: d.title,
    text: d.text,
  }));
  let rank: (q: string, k: number) => number[];
  if (v === 'bm25') {
    const b = buildBm25(chunks.map((x, i) => ({ id: String(i).padStart(6, '0'), text: x.text, lang: x.lang })));
    rank = (q, k) => b(q, k).map(Number);
  } else rank = buildVariant(v, chunks);
  const first = queries.filter((q) => chunks[rank(q.query, 3)[0] ?? -1]?.id === q.expected).length;
  const top3 = queries.filter((q) => rank(q.query, 3).some((i) => chunks[i]!.id === q.expected)).length;
  return `hotel ${first}/${queries.length} top-1, ${top3} top-3`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const corpora = load();
  const only = process.env.VARIANTS?.split(',');
  console.log(`${''.padEnd(34)}${corpora.map((c) => `${c.name} (${c.questions.filter((q) => q.kind !== 'no-answer').length})`.padEnd(30)).join('')}`);
  console.log(`${''.padEnd(34)}${corpora.map(() => 'all   own   para  cross'.padEnd(30)).join('')}`);
  const base = corpora.map((c) => {
    const bm25 = buildBm25(c.chunks.map((x, i) => ({ id: String(i).padStart(6, '0'), text: x.text, lang: x.lang })));
    return outcomes(c.questions, c.chunks, (q, k) => bm25(q, k).map(Number));
  });
  console.log(`${'wink BM25 (baseline)'.padEnd(34)}${base.map((o) => cells(o).padEnd(30)).join('')}${hotel('bm25')}`);
  for (const v of VARIANTS) {
    if (only && !only.some((o) => v.name.includes(o))) continue;
    const res = corpora.map((c) => outcomes(c.questions, c.chunks, buildVariant(v, c.chunks)));
    const same = res.map((o, k) => o.filter((x, i) => x.rank !== base[k]![i]!.rank).length);
    console.log(`${v.name.padEnd(34)}${res.map((o, k) => `${cells(o)} ${same[k] ? `Δ${same[k]}` : ''}`.padEnd(30)).join('')}${hotel(v)}`);
  }
}
