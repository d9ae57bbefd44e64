import type { Token } from 'marked';
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

/** Reads one line's inline Markdown into tokens (marked's inline lexer). */
export type InlineLexer = (line: string) => Token[];

let inlineLexer: Promise<InlineLexer> | undefined;

/** The text a reader sees of inline Markdown tokens: emphasis and links unwrapped, code and escapes as written. */
function plain(tokens: readonly Token[]): string {
  let out = '';
  for (const t of tokens) {
    if (t.type === 'codespan' || t.type === 'escape' || t.type === 'image') out += t.text;
    else if (t.type === 'br') out += ' ';
    else if (t.type === 'html') out += t.raw;
    else if ('tokens' in t && t.tokens) out += plain(t.tokens);
    else out += 'text' in t && typeof t.text === 'string' ? t.text : t.raw;
  }
  return out;
}

/** Reads passages into sentences (`sentences`), once marked is loaded (on first use: a start does not need it). */
export type SentenceReader = (text: string, lang: Language) => Sentence[];

/** A `SentenceReader` over marked's inline lexer, loaded once per thread. */
export async function sentenceReader(): Promise<SentenceReader> {
  inlineLexer ??= import('marked').then(
    ({ Lexer }) =>
      (line: string) =>
        Lexer.lexInline(line),
  );
  const lex = await inlineLexer;
  return (text, lang) => sentences(text, lang, lex);
}

/**
 * The sentences of a passage. Markdown line structure counts: a list item is a
 * sentence of its own even without a full stop, and a heading is no sentence but the
 * `heading` of the sentences under it, which says what they are about. A line of a
 * fenced code block is a sentence as written (D-1012). Inline Markdown is read by
 * marked (`lex`): emphasis marks go, `my_var_name`, `/var/log/*.gz` and `5 * 3` stay as
 * written (D-1076).
 */
export function sentences(text: string, lang: Language, lex: InlineLexer): Sentence[] {
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
    const line = plain(lex(rawLine.replace(/^\s{0,3}(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, ''))).trim();
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
