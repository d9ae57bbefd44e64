/**
 * Issue 25, refusal round (D-910): a family of refusal rules over the signals of
 * `refusal-signals.ts`, chosen leave-one-corpus-out. For each captured corpus held out,
 * the rule refusing the most no-answer questions on the other corpora while keeping, on
 * each of them, `/query` as answered at least BM25's MRR@10 (BM25 computed here over the
 * same chunks) and at most 5% of answerable questions refused; then its figures on the
 * held-out corpus.
 *
 *   BENCH_RELEVANCE_CHUNKS=/tmp/rel BENCH_COMMON_DIR=/tmp/zx node --import tsx bench/relevance/experiments/refusal-loco.ts
 */
import { fmt } from '../../support.js';
import { buildBm25 } from '../bm25.js';
import { distinctSections, rankOf } from '../metrics.js';
import { confidence, missingShare } from '../../../src/retrieval/confidence.js';
import { askAll, generalRanks, loadCorpora, type Asked, type UnknownWord } from './refusal-signals.js';

export interface Rule {
  /** What an unknown inflected form, a word with a digit, a word of general language at the top of the rarity scale count. */
  wI: number;
  wD: number;
  wG: number;
  /** Ranks where a general word starts to count and where it counts wG (log scale). */
  r0: number;
  r1: number;
  /** Names count 1 (else only their rarity). */
  names: boolean;
  /** The score's weight and the threshold. */
  a: number;
  t: number;
  /** What a name of several words no chunk holds together counts. */
  wP?: number;
  /** What any other unknown word counts (an ordinary word of general language, beyond the everyday ones). */
  wO?: number;
}

export function weightOf(u: UnknownWord, r: Rule): number {
  if (process.env.NAME_FIRST && r.names && u.name && !u.digit) return 1;
  if (u.inflected) return r.wI;
  if (u.digit) return r.wD;
  if (u.everyday) return 0;
  if ((r.names && u.name) || u.rank === Infinity) return 1;
  if (u.rank <= r.r0) return r.wO ?? 0;
  return (r.wO ?? 0) + (r.wG - (r.wO ?? 0)) * Math.min(1, Math.log(u.rank / r.r0) / Math.log(r.r1 / r.r0));
}

export function knownOf(a: Asked, r: Rule): number {
  const rich = Math.min(1, a.vocabulary / Number(process.env.RICH ?? 5000));
  const scale = (_u: UnknownWord, w: number) => (w >= 1 && process.env.SCALE !== 'all' ? w : w * rich);
  const missing = a.unknown.reduce((s, u) => s + (process.env.RICH ? scale(u, weightOf(u, r)) : weightOf(u, r)), 0) + (r.wP ?? 0) * a.unheldNames.length;
  const words = process.env.DROP_EVERYDAY ? a.evidence.words - a.everydayKnown - a.unknown.filter((u) => u.everyday && !u.inflected).length : a.evidence.words;
  return 1 - missing / Math.max(1, words) + r.a * a.score;
}

interface Corpus {
  name: string;
  asked: Asked[];
  bm25: number;
}

interface Cost {
  answerableRefused: number;
  n: number;
  noAnswerRefused: number;
  none: number;
  mrr: number;
  foundRefused: number;
}

export function costOf(c: Corpus, refuse: (a: Asked) => boolean): Cost {
  const ans = c.asked.filter((a) => a.question.kind !== 'no-answer');
  const none = c.asked.filter((a) => a.question.kind === 'no-answer');
  return {
    answerableRefused: ans.filter(refuse).length,
    n: ans.length,
    noAnswerRefused: none.filter(refuse).length,
    none: none.length,
    mrr: ans.reduce((s, a) => s + (refuse(a) || !a.rank ? 0 : 1 / a.rank), 0) / ans.length,
    foundRefused: ans.filter((a) => a.rank > 0 && refuse(a)).length,
  };
}

const ok = (c: Corpus, k: Cost) => k.mrr >= c.bm25 - 1e-9 && k.answerableRefused <= 0.05 * k.n;
const show = (c: Corpus, k: Cost) =>
  `${c.name.slice(0, 12).padEnd(12)} ans ${String(k.answerableRefused).padStart(2)}/${k.n} (found ${k.foundRefused}) na ${String(k.noAnswerRefused).padStart(2)}/${k.none} ${fmt((100 * k.noAnswerRefused) / k.none, 0).padStart(3)}% mrr ${fmt(k.mrr, 3)} bm25 ${fmt(c.bm25, 3)}${ok(c, k) ? '' : ' BEHIND'}`;

export function grid(): Rule[] {
  const out: Rule[] = [];
  if (process.env.FAMILY) {
    // The candidates of the refusal round, each a structure chosen by principle; LOCO picks a and t.
    const base = { names: true, wD: 0, r0: 1000, r1: 10000 };
    const fams: Record<string, Omit<Rule, 'a' | 't'>[]> = {
      strong: [{ ...base, wI: 0, wG: 0 }],
      'strong+phrases': [{ ...base, wI: 0, wG: 0, wP: 1 }],
      'strong+phrases+ordinary half': [{ ...base, wI: 0.25, wG: 0.5, wO: 0.5, wP: 1 }],
      'strong+phrases+ordinary quarter': [{ ...base, wI: 0.125, wG: 0.25, wO: 0.25, wP: 1 }],
      'strong+phrases+graded': [{ ...base, wI: 0, wG: 0.5, r0: 3000, r1: 30000, wP: 1 }],
      'D-710 (all unknown words)': [{ ...base, names: false, wI: 0.5, wG: 1, wO: 1, r0: 1, r1: 2 }],
    };
    for (const f of fams[process.env.FAMILY]!)
      for (const a of [0, 0.3, 0.6]) for (let t = 0.6; t <= Number(process.env.TMAX ?? 1.3) + 1e-9; t += 0.01) out.push({ ...f, a, t });
    return out;
  }
  for (const names of [false, true])
    for (const wI of [0, 0.5])
      for (const wD of [0, 1])
        for (const wG of [0, 0.5, 1])
          for (const [r0, r1] of wG
            ? [
                [1000, 10000],
                [1000, 30000],
                [3000, 30000],
                [5000, 50000],
              ]
            : [[1000, 10000]])
            for (const a of [0, 0.3, 0.6])
              for (let t = 0.6; t <= Number(process.env.TMAX ?? 1.3) + 1e-9; t += 0.01) out.push({ names, wI, wD, wG, r0: r0!, r1: r1!, a, t });
  return out;
}

export const ruleName = (r: Rule) =>
  `wP ${r.wP ?? 0} wO ${r.wO ?? 0} names ${r.names ? 1 : 0} wI ${r.wI} wD ${r.wD} wG ${r.wG} r ${r.r0}-${r.r1} a ${r.a} t ${fmt(r.t, 2)}`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const rankOfWord = generalRanks();
  const corpora: Corpus[] = loadCorpora().map((c) => {
    const asked = askAll(c.name, c.chunks, c.questions, rankOfWord);
    const search = buildBm25(c.chunks.map((x) => ({ id: x.id, text: x.text, lang: x.lang })));
    const sectionOf = new Map(c.chunks.map((x) => [x.id, x.section]));
    const ans = c.questions.filter((q) => q.kind !== 'no-answer');
    const bm25 =
      ans.reduce((s, q) => {
        const r = rankOf(q, distinctSections(search(q.text, 10).map((id) => sectionOf.get(id)!)));
        return s + (r ? 1 / r : 0);
      }, 0) / ans.length;
    return { name: c.name, asked, bm25 };
  });
  // SHIPPED=1: the rule as confidence.ts computes it, the share of missing subject words
  // its only parameter; otherwise the family of `grid()`.
  const candidates: { name: string; refuse: (a: Asked) => boolean }[] = process.env.SHIPPED
    ? Array.from({ length: 101 }, (_, i) => i * 0.005).map((share) => ({
        name: `confidence.ts, missing share ${fmt(share, 3)}`,
        refuse: (a: Asked) => confidence(a.evidence, share) < 0,
      }))
    : grid().map((r) => ({ name: ruleName(r), refuse: (a: Asked) => knownOf(a, r) < r.t }));
  console.log('current rule (confidence.ts) and never:');
  for (const c of corpora)
    console.log(
      `  never   ${show(
        c,
        costOf(c, () => false),
      )}`,
    );
  for (const c of corpora)
    console.log(
      `  shipped ${show(
        c,
        costOf(c, (a) => confidence(a.evidence) < 0),
      )}`,
    );
  for (const held of [...corpora.map((c) => c.name), 'none']) {
    const tune = corpora.filter((c) => c.name !== held);
    let best: { r: (typeof candidates)[number]; na: number; ans: number } | undefined;
    for (const r of candidates) {
      const refuse = r.refuse;
      const costs = tune.map((c) => costOf(c, refuse));
      if (!costs.every((k, i) => ok(tune[i]!, k))) continue;
      // The share of no-answer questions refused, each corpus weighing the same; then fewer answerable refused.
      const na = costs.reduce((s, k) => s + k.noAnswerRefused / k.none, 0);
      const ans = costs.reduce((s, k) => s + k.answerableRefused, 0);
      if (!best || na > best.na + 1e-9 || (Math.abs(na - best.na) < 1e-9 && ans < best.ans)) best = { r, na, ans };
    }
    if (!best) continue;
    console.log(`\nheld out ${held}: ${best.r.name}`);
    const refuse = best.r.refuse;
    for (const c of corpora) console.log(`  ${c.name === held ? 'HELD' : 'tune'}    ${show(c, costOf(c, refuse))}`);
    if (process.env.VERBOSE) {
      for (const c of corpora)
        for (const a of c.asked)
          if (refuse(a) !== (a.question.kind === 'no-answer'))
            console.log(
              `    ${a.question.kind === 'no-answer' ? 'kept' : 'REFUSED'} ${a.question.id} r${a.rank} missing ${fmt(missingShare(a.evidence), 3)} | ${a.question.text.slice(0, 70)}`,
            );
    }
  }
}
