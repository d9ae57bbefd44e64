import type { Segment } from './segments.js';

/*
 * Monotone alignment of two translations' pieces (sections, blocks, sentences), in the
 * manner of Gale and Church: a translation keeps the order of its original, so the best
 * path through 1-1, 1-0, 0-1, 2-1 and 1-2 steps, scored by how well the lengths fit and
 * how many anchors (numbers, code, names) the two sides share (decisions, D-787).
 */

/** A step of the path: `a` pieces `[a0, a1)` face `b` pieces `[b0, b1)`. */
export interface Bead {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

/** Above this many cells the sequences are not aligned (a pathological document). */
const MAX_CELLS = 250_000;
/** What leaving a piece without counterpart costs, in length-misfit units. */
const SKIP = 3;
/** What joining two pieces costs on top of their misfit. */
const MERGE = 1;
/** The spread of log length ratios between a piece and its translation. */
const SPREAD = 0.45;
/** What shared anchors are worth at most. */
const ANCHOR_WEIGHT = 2;

function misfit(a: number, b: number, ratio: number): number {
  return Math.abs(Math.log((b + 1) / (a + 1)) - ratio) / SPREAD;
}

/** `misfit` from the two lengths' logs (of length + 1). */
function logMisfit(logA: number, logB: number, ratio: number): number {
  return Math.abs(logB - logA - ratio) / SPREAD;
}

/** The anchors of two adjacent pieces together (a merge step's). */
function union(x: Segment, y: Segment): ReadonlySet<string> {
  if (y.anchors.size === 0) return x.anchors;
  if (x.anchors.size === 0) return y.anchors;
  const out = new Set(x.anchors);
  for (const t of y.anchors) out.add(t);
  return out;
}

/** Dice of the two anchor sets minus the share left unmatched (anchors on one side only are a sign against); 0 without any. */
function shared(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  if (left.size === 0 || right.size === 0) return left.size === right.size ? 0 : -0.5;
  const small = left.size <= right.size ? left : right;
  const large = small === left ? right : left;
  let both = 0;
  for (const t of small) if (large.has(t)) both += 1;
  const dice = (2 * both) / (left.size + right.size);
  return dice - 0.5 * (1 - dice);
}

/**
 * The best monotone path between `a` and `b` as beads, in order; undefined when the
 * sequences are too long to align. `ratio` is the log of b's length over a's for the
 * whole pair (how much longer the translation runs).
 */
export function alignSegments(a: readonly Segment[], b: readonly Segment[], ratio: number): Bead[] | undefined {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) return undefined;
  const width = m + 1;
  const cost = new Float64Array((n + 1) * width).fill(Infinity);
  const back = new Uint8Array((n + 1) * width);
  cost[0] = 0;
  // Each piece with the one before it, for the merge steps.
  const a2 = a.map((s, i) => (i ? union(a[i - 1]!, s) : s.anchors));
  const b2 = b.map((s, j) => (j ? union(b[j - 1]!, s) : s.anchors));
  // Each piece's log length, alone and with the one before it: a cell's three fits read them.
  const logs = (s: readonly Segment[]) => {
    const one = new Float64Array(s.length);
    const two = new Float64Array(s.length);
    for (let k = 0; k < s.length; k++) {
      one[k] = Math.log(s[k]!.length + 1);
      two[k] = k ? Math.log(s[k]!.length + s[k - 1]!.length + 1) : 0;
    }
    return { one, two };
  };
  const la = logs(a);
  const lb = logs(b);
  const consider = (i: number, j: number, from: number, step: number, c: number) => {
    if (from === Infinity) return;
    const total = from + c;
    if (total < cost[i * width + j]!) {
      cost[i * width + j] = total;
      back[i * width + j] = step;
    }
  };
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      if (i === 0 && j === 0) continue;
      if (i && j) {
        const x = a[i - 1]!;
        const y = b[j - 1]!;
        consider(i, j, cost[(i - 1) * width + j - 1]!, 0, logMisfit(la.one[i - 1]!, lb.one[j - 1]!, ratio) - ANCHOR_WEIGHT * shared(x.anchors, y.anchors));
        if (i > 1)
          consider(
            i,
            j,
            cost[(i - 2) * width + j - 1]!,
            3,
            MERGE + logMisfit(la.two[i - 1]!, lb.one[j - 1]!, ratio) - ANCHOR_WEIGHT * shared(a2[i - 1]!, y.anchors),
          );
        if (j > 1)
          consider(
            i,
            j,
            cost[(i - 1) * width + j - 2]!,
            4,
            MERGE + logMisfit(la.one[i - 1]!, lb.two[j - 1]!, ratio) - ANCHOR_WEIGHT * shared(x.anchors, b2[j - 1]!),
          );
      }
      if (i) consider(i, j, cost[(i - 1) * width + j]!, 1, SKIP);
      if (j) consider(i, j, cost[i * width + j - 1]!, 2, SKIP);
    }
  }
  const steps: [number, number][] = [
    [1, 1],
    [1, 0],
    [0, 1],
    [2, 1],
    [1, 2],
  ];
  const beads: Bead[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const [di, dj] = steps[back[i * width + j]!]!;
    beads.push({ a0: i - di, a1: i, b0: j - dj, b1: j });
    i -= di;
    j -= dj;
  }
  return beads.reverse();
}

/** How well two single pieces fit as translations (higher is better; above 0 is a fair fit). */
export function fit(a: Segment, b: Segment, ratio: number): number {
  return ANCHOR_WEIGHT * shared(a.anchors, b.anchors) + 1 - misfit(a.length, b.length, ratio);
}
