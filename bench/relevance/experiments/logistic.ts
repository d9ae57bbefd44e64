/**
 * A small logistic regression for the confidence experiments: features standardised on
 * the fitting set, an L2 penalty, plain gradient descent from zero (deterministic).
 */
export interface Model {
  /** The log-odds of "answerable" for raw features. */
  predict(x: number[]): number;
  /** Raw-feature weights and intercept, for porting. */
  weights: number[];
  bias: number;
  describe(names: string[]): string;
}

export function fitLogistic(xs: number[][], ys: number[], options: { l2?: number; steps?: number; rate?: number } = {}): Model {
  const { l2 = 1, steps = 4000, rate = 0.1 } = options;
  const d = xs[0]?.length ?? 0;
  const n = xs.length;
  const mean = Array.from({ length: d }, (_, j) => xs.reduce((s, x) => s + x[j]!, 0) / n);
  const sd = Array.from({ length: d }, (_, j) => Math.sqrt(xs.reduce((s, x) => s + (x[j]! - mean[j]!) ** 2, 0) / n) || 1);
  const z = xs.map((x) => x.map((v, j) => (v - mean[j]!) / sd[j]!));
  // Classes weighed equally: 18 no-answer questions against ~90 answerable ones.
  const pos = ys.filter((y) => y === 1).length;
  const cw = ys.map((y) => (y === 1 ? n / (2 * pos) : n / (2 * (n - pos))));
  const w = new Array<number>(d).fill(0);
  let b = 0;
  for (let step = 0; step < steps; step++) {
    const gw = new Array<number>(d).fill(0);
    let gb = 0;
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-(b + z[i]!.reduce((s, v, j) => s + v * w[j]!, 0))));
      const g = (p - ys[i]!) * cw[i]!;
      for (let j = 0; j < d; j++) gw[j]! += g * z[i]![j]!;
      gb += g;
    }
    for (let j = 0; j < d; j++) w[j]! -= rate * (gw[j]! / n + (l2 * w[j]!) / n);
    b -= (rate * gb) / n;
  }
  const weights = w.map((v, j) => v / sd[j]!);
  const bias = b - w.reduce((s, v, j) => s + (v * mean[j]!) / sd[j]!, 0);
  return {
    weights,
    bias,
    predict: (x) => bias + x.reduce((s, v, j) => s + v * weights[j]!, 0),
    describe: (names) => `${bias.toFixed(3)} ${weights.map((v, j) => `${v >= 0 ? '+' : '-'} ${Math.abs(v).toFixed(3)}·${names[j]}`).join(' ')}`,
  };
}
