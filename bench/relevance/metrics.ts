export type Kind = 'same-words' | 'paraphrased' | 'no-answer';

export interface Question {
  id: string;
  lang: 'en' | 'es';
  kind: Kind;
  text: string;
  /** Section keys (`ch03#_the_hostname`); either language's document of a section counts. Empty for no-answer. */
  relevant: string[];
  /** The answer is only in text of the other language. */
  cross?: boolean;
}

export interface Outcome {
  question: Question;
  /** 1-based rank of the first relevant section among the distinct sections of the top 10 passages; 0 when absent. */
  rank: number;
  /** How many passages came back. */
  passages: number;
  /** The distinct sections the passages name, best first. */
  sections: string[];
}

/** Sections in the order the ranked passages first name them. */
export function distinctSections(sections: string[]): string[] {
  return [...new Set(sections)];
}

export function rankOf(question: Question, ranked: string[]): number {
  const relevant = new Set(question.relevant);
  const at = distinctSections(ranked).findIndex((s) => relevant.has(s));
  return at < 0 ? 0 : at + 1;
}

export interface Figures {
  n: number;
  top1: number;
  top3: number;
  mrr: number;
}

/** Top-1, top-3 and MRR@10 of answerable outcomes. */
export function figures(outcomes: Outcome[]): Figures {
  const n = outcomes.length;
  if (n === 0) return { n, top1: 0, top3: 0, mrr: 0 };
  const top1 = outcomes.filter((o) => o.rank === 1).length / n;
  const top3 = outcomes.filter((o) => o.rank >= 1 && o.rank <= 3).length / n;
  const mrr = outcomes.reduce((sum, o) => sum + (o.rank ? 1 / o.rank : 0), 0) / n;
  return { n, top1, top3, mrr };
}

/** The rows of the table: overall, per category, per question language. */
export const CATEGORIES: { name: string; keep: (q: Question) => boolean }[] = [
  { name: 'all answerable', keep: () => true },
  { name: 'same words', keep: (q) => q.kind === 'same-words' },
  { name: 'paraphrased', keep: (q) => q.kind === 'paraphrased' },
  { name: 'cross-language', keep: (q) => q.cross === true },
  { name: '  es question, en text', keep: (q) => q.cross === true && q.lang === 'es' },
  { name: '  en question, es text', keep: (q) => q.cross === true && q.lang === 'en' },
  { name: 'English questions', keep: (q) => q.lang === 'en' },
  { name: 'Spanish questions', keep: (q) => q.lang === 'es' },
];
