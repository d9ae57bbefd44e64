/**
 * Issue 25, refusal round (D-911): how a refusal rule behaves on small knowledge. Each
 * development corpus is cut into small scopes (a chapter of the reference, ten
 * consecutive pages of the handbook or the installation guide); a question is answerable
 * in a scope when one of its labelled sections is there, and every no-answer question of
 * the corpus is asked too. Prints, per scope size, answerable questions refused (and of
 * those found in the top 10) and no-answer questions refused, under each rule.
 *
 *   BENCH_RELEVANCE_CHUNKS=/tmp/rel BENCH_COMMON_DIR=/tmp/zx node --import tsx bench/relevance/experiments/refusal-small.ts
 */
import { fmt } from '../../support.js';
import { askAll, generalRanks, loadCorpora, type Asked } from './refusal-signals.js';
import { knownOf, type Rule } from './refusal-loco.js';
import { confidence } from '../../../src/retrieval/confidence.js';

const groupOf = (corpus: string, section: string, order: string[]): string =>
  corpus === 'debian-reference' ? section.split('#')[0]! : String(Math.floor(order.indexOf(section) / 10));

export const CANDIDATE: Rule = { names: true, wD: 0, r0: 1000, r1: 10000, wI: 0.25, wG: 0.5, wO: 0.5, wP: 1, a: 0, t: 0.845 };

const rules: [string, (a: Asked) => boolean][] = [
  ['D-763 (shipped)', (a) => confidence(a.evidence) < 0],
  ['candidate', (a) => knownOf(a, CANDIDATE) < CANDIDATE.t],
  ['candidate + score < 0.05', (a) => knownOf(a, CANDIDATE) < CANDIDATE.t || a.score < 0.05],
];

if (import.meta.url === `file://${process.argv[1]}`) {
  const ranks = generalRanks();
  const rows = new Map<string, { ans: number; refused: number[]; found: number[]; foundRefused: number[]; na: number; naRefused: number[] }>();
  for (const c of loadCorpora()) {
    const order = [...new Set(c.chunks.map((x) => x.section))].sort();
    const groups = new Map<string, typeof c.chunks>();
    for (const chunk of c.chunks) {
      const g = groupOf(c.name, chunk.section, order);
      groups.set(g, [...(groups.get(g) ?? []), chunk]);
    }
    for (const [g, chunks] of groups) {
      const sections = new Set(chunks.map((x) => x.section));
      const questions = c.questions.filter((q) => q.kind === 'no-answer' || q.relevant.some((s) => sections.has(s)));
      if (!questions.some((q) => q.kind !== 'no-answer')) continue;
      const asked = askAll(c.name, chunks, questions, ranks);
      const size = chunks.length < 60 ? 'under 60 chunks' : chunks.length < 120 ? '60 to 119 chunks' : '120 chunks and more';
      const row =
        rows.get(size) ?? ({ ans: 0, refused: rules.map(() => 0), found: 0, foundRefused: rules.map(() => 0), na: 0, naRefused: rules.map(() => 0) } as never);
      rows.set(size, row);
      for (const a of asked) {
        const none = a.question.kind === 'no-answer';
        if (none) row.na += 1;
        else row.ans += 1;
        if (!none && a.rank > 0) (row as unknown as { found: number }).found += 1;
        rules.forEach(([, refuse], k) => {
          if (!refuse(a)) return;
          if (none) row.naRefused[k]! += 1;
          else {
            row.refused[k]! += 1;
            if (a.rank > 0) row.foundRefused[k]! += 1;
            if (process.env.VERBOSE && k === 1)
              console.log(
                `  ${c.name.slice(0, 6)} scope ${g} (${chunks.length} chunks, vocabulary ${a.vocabulary}) refused ${a.question.id} r${a.rank}: ${a.question.text.slice(0, 60)} [${a.unknown.map((u) => u.word).join(',')}]`,
              );
          }
        });
      }
      void g;
    }
  }
  const pct = (x: number, n: number) => `${fmt((100 * x) / Math.max(1, n), 0)}%`;
  for (const [size, r] of rows) {
    console.log(`${size}: ${r.ans} answerable (${(r as unknown as { found: number }).found} found), ${r.na} no-answer`);
    rules.forEach(([name], k) =>
      console.log(
        `  ${name.padEnd(28)} answerable refused ${r.refused[k]} (${pct(r.refused[k]!, r.ans)}), found refused ${r.foundRefused[k]}, no-answer refused ${pct(r.naRefused[k]!, r.na)}`,
      ),
    );
  }
}
