/**
 * Knowing when it does not know: a question is refused (no passages) when the
 * confidence of its best chunk is below a threshold. The threshold is the lowest one that
 * refuses at least `TARGET` of the no-answer questions of the tuning half: the lowest
 * such threshold keeps the most answerable questions.
 */
import type { Outcome } from '../metrics.js';

export const TARGET = 0.8;

export interface WithConfidence extends Outcome {
  confidence: number;
}

export function calibrate(tuning: WithConfidence[], target = TARGET): number {
  const none = tuning
    .filter((o) => o.question.kind === 'no-answer')
    .map((o) => o.confidence)
    .sort((a, b) => a - b);
  if (none.length === 0) return 0;
  // Refusing below t refuses every no-answer question whose confidence is < t.
  const need = Math.max(1, Math.ceil(target * none.length));
  const t = none[need - 1]!;
  // Just above the need-th lowest: that one is refused too.
  return t + 1e-9;
}

/** Share of no-answer questions refused; share of answerable questions still answered; and of those found in the top 10, still answered. */
export function noAnswerFigures(outcomes: WithConfidence[], threshold: number): { abstained: number; kept: number; keptFound: number } {
  const none = outcomes.filter((o) => o.question.kind === 'no-answer');
  const answerable = outcomes.filter((o) => o.question.kind !== 'no-answer');
  const found = answerable.filter((o) => o.rank > 0);
  return {
    abstained: none.filter((o) => o.confidence < threshold).length / Math.max(1, none.length),
    kept: answerable.filter((o) => o.confidence >= threshold).length / Math.max(1, answerable.length),
    keptFound: found.filter((o) => o.confidence >= threshold).length / Math.max(1, found.length),
  };
}
