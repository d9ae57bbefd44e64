/**
 * Fusion rules compared offline on the captures of `fusion-dump.ts` (every corpus but
 * the blind ones): the lexical ranking alone, D-306's reciprocal-rank fusion, and bounded rules
 * where the vectors move a passage by at most `eps` of its lexical score. Each rule also
 * under stand-in embedders (the captured vectors replaced): random (mean over `SEEDS`),
 * adversarial (every relevant chunk last) and oracle (every relevant chunk first), to see
 * what the vectors can cost where the words separate passages, and what they could gain.
 * Default: the shipped rule (D-1219) and the one before it (D-990) beside words alone and RRF; `GRID=rank` (or `raw`):
 * the relative nudge by its share; `ALL=1`: every family. `FUSION_DATA=dir` as for the dump.
 */
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allCorpora } from '../corpora/index.js';
import { rankOf, type Question } from '../metrics.js';

/** The corpora that are not blind, in the bench's order. */
const CORPORA = (await allCorpora()).filter((c) => c.role !== 'blind').map((c) => c.name);
const DIR = process.env.FUSION_DATA ?? tmpdir();
const LIMIT = 10;
const DEPTH = 100;

interface Row {
  lexical: [number, number][];
  refused: boolean;
  cos: number[];
}
interface Data {
  chunks: { section: string; lang: string }[];
  questions: Question[];
  rows: Row[];
}
type Rule = (row: Row) => number[];

function topByCos(cos: number[], n: number): number[] {
  return cos
    .map((c, i) => [c, i] as const)
    .filter(([c]) => c > 0)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, n)
    .map(([, i]) => i);
}

const lexical: Rule = (row) => row.lexical.slice(0, LIMIT).map(([i]) => i);

const rrf: Rule = (row) => {
  const s = new Map<number, number>();
  const add = (ps: number[]) => ps.forEach((p, r) => s.set(p, (s.get(p) ?? 0) + 1 / (60 + r + 1)));
  add(row.lexical.map(([i]) => i));
  add(topByCos(row.cos, DEPTH));
  return [...s]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, LIMIT)
    .map(([i]) => i);
};

/** How a cosine becomes 0..1 before it is weighed. */
type Form = 'raw' | 'minmax' | 'rank';
function unit(row: Row, form: Form): (i: number) => number {
  if (form === 'raw') return (i) => Math.max(0, row.cos[i]!);
  if (form === 'minmax') {
    let lo = Infinity;
    let hi = -Infinity;
    for (const c of row.cos) {
      lo = Math.min(lo, c);
      hi = Math.max(hi, c);
    }
    return (i) => (hi > lo ? (row.cos[i]! - lo) / (hi - lo) : 0);
  }
  const order = topByCos(row.cos, DEPTH);
  const r = new Map(order.map((p, k) => [p, k]));
  return (i) => (r.has(i) ? 1 - r.get(i)! / DEPTH : 0);
}

/** score = lexical + eps × the vectors' 0..1; candidates: both lists 100 deep. */
function nudge(eps: number, form: Form, add = true): Rule {
  return (row) => {
    const f = unit(row, form);
    const s = new Map<number, number>(row.lexical.map(([i, sc]) => [i, sc]));
    if (add) for (const i of topByCos(row.cos, DEPTH)) if (!s.has(i)) s.set(i, 0);
    return [...s]
      .map(([i, sc]) => [i, sc + eps * f(i), sc] as const)
      .sort((a, b) => b[1] - a[1] || b[2] - a[2] || a[0] - b[0])
      .slice(0, LIMIT)
      .map(([i]) => i);
  };
}

/** score = lexical × (1 + eps × the vectors' 0..1): a relative nudge; vector-only passages below `floor` join by cosine. */
function relNudge(eps: number, form: Form, floor = 0): Rule {
  return (row) => {
    const f = unit(row, form);
    const s = new Map<number, number>(row.lexical.map(([i, sc]) => [i, sc]));
    if (floor > 0) for (const i of topByCos(row.cos, DEPTH)) if (!s.has(i)) s.set(i, 0);
    return [...s]
      .map(([i, sc]) => [i, sc >= floor ? sc * (1 + eps * f(i)) : floor * f(i) * 0.999, sc] as const)
      .sort((a, b) => b[1] - a[1] || b[2] - a[2] || a[0] - b[0])
      .slice(0, LIMIT)
      .map(([i]) => i);
  };
}

/** Lexical bands: a passage within `eps` of the band's first joins it; a band is ordered by cosine. */
function band(eps: number, relative = false): Rule {
  return (row) => {
    const out: number[] = [];
    let k = 0;
    const lex = row.lexical;
    while (k < lex.length && out.length < LIMIT) {
      const head = lex[k]![1];
      let j = k;
      while (j < lex.length && (relative ? lex[j]![1] >= head * (1 - eps) : head - lex[j]![1] <= eps)) j++;
      const group = lex.slice(k, j).map(([i]) => i);
      group.sort((a, b) => row.cos[b]! - row.cos[a]! || a - b);
      out.push(...group);
      k = j;
    }
    return out.slice(0, LIMIT);
  };
}

interface M {
  mrr: number;
  own: number;
  para: number;
  cross: number;
}
function measure(data: Data, rule: Rule, cosOf?: (q: number, row: Row) => number[]): M {
  const acc = { all: [] as number[], own: [] as number[], para: [] as number[], cross: [] as number[] };
  data.questions.forEach((q, n) => {
    if (q.kind === 'no-answer') return;
    const row0 = data.rows[n]!;
    const row = cosOf ? { ...row0, cos: cosOf(n, row0) } : row0;
    const rank = row.refused
      ? 0
      : rankOf(
          q,
          rule(row).map((i) => data.chunks[i]!.section),
        );
    const rr = rank ? 1 / rank : 0;
    acc.all.push(rr);
    if (q.kind === 'same-words') acc.own.push(rr);
    if (q.kind === 'paraphrased') acc.para.push(rr);
    if (q.cross) acc.cross.push(rr);
  });
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return { mrr: mean(acc.all), own: mean(acc.own), para: mean(acc.para), cross: mean(acc.cross) };
}

/** A deterministic stand-in: uniform noise per question and chunk. */
function random(seed: number) {
  return (q: number, row: Row) =>
    row.cos.map((_, i) => {
      let h = (seed * 2654435761 + q * 40503 + i * 2246822519) >>> 0;
      h ^= h >>> 15;
      h = Math.imul(h, 2246822507) >>> 0;
      h ^= h >>> 13;
      return (h >>> 0) / 4294967296;
    });
}
/** The worst embedder for this question: every relevant chunk last, the rest at random. */
function adversarial(data: Data) {
  const rnd = random(7);
  return (q: number, row: Row) => {
    const rel = new Set(data.questions[q]!.relevant);
    const r = rnd(q, row);
    return r.map((x, i) => (rel.has(data.chunks[i]!.section) ? -1 : x));
  };
}

const f3 = (x: number) => x.toFixed(Number(process.env.DIGITS ?? 3)).replace(/^0/, '');
const corpora = CORPORA.filter((c) => existsSync(join(DIR, `${c}.fusion.json`)));
const datas = corpora.map((c) => JSON.parse(readFileSync(join(DIR, `${c}.fusion.json`), 'utf8')) as Data);

const RULES: [string, Rule][] = [
  ['lexical', lexical],
  ['rrf 1:1 (D-306)', rrf],
  ...[0.005, 0.01, 0.02, 0.03, 0.05].flatMap((e) => (['raw', 'minmax', 'rank'] as Form[]).map((f) => [`rel ${e} ${f}`, relNudge(e, f)] as [string, Rule])),
  ...[0.02, 0.05, 0.1].map((fl) => [`rel 0.02 rank floor ${fl}`, relNudge(0.02, 'rank', fl)] as [string, Rule]),
  ...[0.001, 0.005, 0.01, 0.02, 0.05].flatMap((e) => (['raw', 'minmax', 'rank'] as Form[]).map((f) => [`nudge ${e} ${f}`, nudge(e, f)] as [string, Rule])),
  ...[0.001, 0.005, 0.01, 0.02, 0.05].map((e) => [`band ${e}`, band(e)] as [string, Rule]),
  ...[0.005, 0.01, 0.02, 0.03, 0.05, 0.1].map((e) => [`band rel ${e}`, band(e, true)] as [string, Rule]),
];

/** A helpful stand-in: every relevant chunk near the question, the rest at random below it. */
function oracle(data: Data) {
  const rnd = random(11);
  return (q: number, row: Row) => {
    const rel = new Set(data.questions[q]!.relevant);
    return rnd(q, row).map((x, i) => (rel.has(data.chunks[i]!.section) ? 1 + x : x));
  };
}

const SEEDS = Number(process.env.SEEDS ?? 20);
/** D-990, superseded: a relative nudge of 1% by the vectors' rank, under the refusal's 5% share (0.05 / (k1 + 1) as a score). */
const D990 = relNudge(0.01, 'rank', 0.05 / 2.2);
/** The shipped rule (D-1219): no nudge where the words hold evidence; D-990's mean under the floor. */
const SHIPPED = relNudge(0, 'rank', 0.05 / 2.2);
if (!process.env.GRID && !process.env.ALL) {
  console.log(`MRR@10 / own words / paraphrased / cross-language as answered; random: mean of ${SEEDS} seeds`);
  const rows: [string, Rule, ((d: Data) => (q: number, row: Row) => number[]) | undefined][] = [
    ['words alone', lexical, undefined],
    ['RRF 1:1 (D-306), USE', rrf, undefined],
    ['D-990, USE', D990, undefined],
    ['D-990, adversarial', D990, adversarial],
    ['D-1219, USE', SHIPPED, undefined],
    ['D-1219, random', SHIPPED, () => random(0)],
    ['D-1219, adversarial', SHIPPED, adversarial],
    ['D-1219, oracle', SHIPPED, oracle],
    ['RRF 1:1 (D-306), random', rrf, () => random(0)],
  ];
  console.log(''.padEnd(26) + corpora.map((c) => c.padEnd(30)).join(''));
  for (const [name, rule, stand] of rows) {
    const cells = datas.map((d) => {
      let m: M;
      if (stand && name.endsWith('random')) {
        const all = Array.from({ length: SEEDS }, (_, s) => measure(d, rule, random(s + 1)));
        const avg = (k: keyof M) => all.reduce((a, x) => a + x[k], 0) / all.length;
        m = { mrr: avg('mrr'), own: avg('own'), para: avg('para'), cross: avg('cross') };
      } else m = measure(d, rule, stand?.(d));
      return `${f3(m.mrr)} ${f3(m.own)} ${f3(m.para)} ${f3(m.cross)}`.padEnd(30);
    });
    console.log(name.padEnd(26) + cells.join(''));
  }
  process.exit(0);
}
if (process.env.GRID) {
  console.log('relative nudge by the vectors rank (u = 1 - r/100): USE | random mean over seeds (MRR own) | oracle | adversarial');
  for (const e of [0, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05]) {
    const rule = relNudge(e, (process.env.GRID as Form) ?? 'rank', 0.05 / 2.2);
    const cells = datas.map((d) => {
      const m = measure(d, rule);
      let rm = 0;
      let ro = 0;
      for (let s = 1; s <= SEEDS; s++) {
        const x = measure(d, rule, random(s));
        rm += x.mrr / SEEDS;
        ro += x.own / SEEDS;
      }
      const o = measure(d, rule, oracle(d));
      const a = measure(d, rule, adversarial(d));
      return `${f3(m.mrr)} ${f3(m.own)} | ${f3(rm)} ${f3(ro)} | ${f3(o.mrr)} ${f3(o.own)} | ${f3(a.mrr)} ${f3(a.own)}`.padEnd(56);
    });
    console.log(String(e).padEnd(8) + cells.join(''));
  }
  const base = datas.map((d) => {
    const m = measure(d, lexical);
    return `${f3(m.mrr)} ${f3(m.own)}`.padEnd(56);
  });
  console.log('lexical '.padEnd(8) + base.join(''));
  process.exit(0);
}
console.log(`rule`.padEnd(24) + corpora.map((c) => c.padEnd(44)).join(''));
console.log(''.padEnd(24) + corpora.map(() => 'MRR  own  para cross| rand  adv  '.padEnd(44)).join(''));
for (const [name, rule] of RULES) {
  const cells = datas.map((d) => {
    const m = measure(d, rule);
    let rnd = 0;
    for (let s = 1; s <= SEEDS; s++) rnd += measure(d, rule, random(s)).mrr / SEEDS;
    const adv = measure(d, rule, adversarial(d)).mrr;
    return `${f3(m.mrr)} ${f3(m.own)} ${f3(m.para)} ${f3(m.cross)}| ${f3(rnd)} ${f3(adv)}`.padEnd(44);
  });
  console.log(name.padEnd(24) + cells.join(''));
}
