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
