import { codeLines, HEADING_MARKS } from './code-fences.js';
import type { Language } from './language.js';

// Made on first use: building a segmenter loads ICU's rules, which a start does not need (D-747).
const segmenters: Partial<Record<Language, Intl.Segmenter>> = {};
const sentenceSegmenter = (lang: Language) => (segmenters[lang] ??= new Intl.Segmenter(lang, { granularity: 'sentence' }));

export interface Sentence {
  text: string;
  /** The Markdown heading the sentence sits under ('' when none). */
  heading: string;
}

/**
 * The sentences of a passage. Markdown line structure counts: a list item is a
 * sentence of its own even without a full stop, and a heading is no sentence but the
 * `heading` of the sentences under it, which says what they are about. A line of a
 * fenced code block is a sentence as written (D-1012).
 */
export function sentences(text: string, lang: Language): Sentence[] {
  const out: Sentence[] = [];
  let heading = '';
  const lines = text.split('\n');
  const code = codeLines(lines);
  lines.forEach((rawLine, i) => {
    // A line of code is a sentence as written (a command to quote), never a heading.
    if (code[i]) {
      if (code[i] === 'code' && rawLine.trim()) out.push({ text: rawLine.trim(), heading });
      return;
    }
    const isHeading = HEADING_MARKS.test(rawLine);
    const line = rawLine
      .replace(/^\s{0,3}(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, '')
      .replace(/[*_`]+/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .trim();
    if (!line) return;
    if (isHeading) {
      heading = line;
      return;
    }
    for (const s of sentenceSegmenter(lang).segment(line)) {
      const sentence = s.segment.trim();
      if (sentence) out.push({ text: sentence, heading });
    }
  });
  return out;
}
