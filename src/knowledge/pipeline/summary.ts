import { toEnglish } from '../../text/glossary.js';
import { codeLines } from '../../text/code-fences.js';
import type { Language } from '../../text/language.js';
import { stripPlural } from '../../text/stemmers.js';
import { isCalendarWord, isFunctionWord } from '../../text/stopwords.js';
import { fold, foldWord, rawWords } from '../../text/words.js';
import type { DocFormat } from './formats.js';

export interface SummaryInput {
  kind: 'upload' | 'url';
  format: DocFormat;
  title: string;
  lang: Language;
  /** The extracted Markdown. */
  text: string;
}

const TERMS = 3;
const TITLE_MAX = 80;
const HEADING_WEIGHT = 3;

const NOUNS: Record<DocFormat, string> = {
  markdown: 'Document',
  text: 'Text document',
  html: 'HTML document',
  csv: 'CSV table',
  json: 'JSON data',
  pdf: 'PDF document',
};

interface Term {
  score: number;
  first: number;
  forms: Map<string, number>;
}

/** The words that say most about a text: frequent content words, headings counting thrice, title words left out. */
export function keyTerms(text: string, title: string, limit = TERMS): string[] {
  const inTitle = new Set(rawWords(title).map((w) => stripPlural(fold(w))));
  const terms = new Map<string, Term>();
  let position = 0;
  const lines = text.split('\n');
  const code = codeLines(lines);
  for (const [i, line] of lines.entries()) {
    // `# apt update` in a code block is a root prompt, no heading (D-1012).
    const weight = !code[i] && /^#{1,6}\s/.test(line) ? HEADING_WEIGHT : 1;
    for (const word of rawWords(line)) {
      position += 1;
      const folded = foldWord(word);
      if (folded.length < 4 || /^\d/.test(folded) || isFunctionWord(folded) || isCalendarWord(folded)) continue;
      const key = stripPlural(folded);
      if (inTitle.has(key)) continue;
      let term = terms.get(key);
      if (!term) {
        term = { score: 0, first: position, forms: new Map() };
        terms.set(key, term);
      }
      term.score += weight;
      const form = word.toLowerCase();
      term.forms.set(form, (term.forms.get(form) ?? 0) + 1);
    }
  }
  // Ties go to the word met first, then the alphabet: the same text always gives the same card.
  const ranked = [...terms.entries()].sort(([ka, a], [kb, b]) => b.score - a.score || a.first - b.first || (ka < kb ? -1 : 1));
  return ranked.slice(0, limit).map(([, t]) => [...t.forms.entries()].sort(([fa, a], [fb, b]) => b - a || (fa < fb ? -1 : 1))[0]![0]);
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function quoted(title: string, max = TITLE_MAX): string {
  const clean = title.replace(/\s+/g, ' ').replace(/"/g, "'").trim();
  return `"${clean.length > max ? `${clean.slice(0, max - 1).trimEnd()}…` : clean}"`;
}

/**
 * The index card: one English line naming what the source covers (its kind, title,
 * language when Spanish, and its key terms; a Spanish source's terms are the ones the
 * glossary renders in English, with the original in parentheses). Deterministic
 * (decisions, D-086).
 */
export function summarize(input: SummaryInput): string {
  const noun = input.kind === 'url' ? 'Web page' : NOUNS[input.format];
  const language = input.lang === 'es' ? ' in Spanish' : '';
  const seen = new Set<string>();
  const roots = new Set<string>();
  const terms: string[] = [];
  // The card is English: a Spanish source lists only the subjects it can say in
  // English (the glossary's), never an untranslated Spanish word.
  const candidates =
    input.lang === 'es' ? keyTerms(input.text, input.title, TERMS * 8).filter((t) => toEnglish(t)) : keyTerms(input.text, input.title, TERMS * 2);
  for (const term of candidates) {
    const english = input.lang === 'es' ? toEnglish(term) : undefined;
    const shown = english ? `${english} (${term})` : term;
    const key = english ?? term;
    // `open` adds nothing next to `opening`.
    const root = fold(term);
    if (seen.has(key) || [...roots].some((r) => r.startsWith(root) || root.startsWith(r))) continue;
    roots.add(root);
    seen.add(key);
    terms.push(shown);
    if (terms.length === TERMS) break;
  }
  const covering = terms.length ? ` covering ${list(terms)}` : '';
  return `${noun} ${quoted(input.title)}${language}${covering}.`;
}

/** The index card of a claim: what it states, in English. */
export function summarizeClaim(en: string): string {
  return `Claim stating ${quoted(en, 160)}.`;
}
