import { isSearchStopword, snowballStem, withoutNumbering } from '../../text/analyze.js';
import { HEADING_MARKS, headingLines } from '../../text/code-fences.js';
import type { Language } from '../../text/language.js';
import { ONLY_ENGLISH, ONLY_SPANISH } from '../../text/search-words.js';
import { accentedWords, fold, words } from '../../text/words.js';

/*
 * A document as the lexicon reads it (decisions, D-786): its text put back together
 * from its chunks, cut into sections at headings, a section into blocks at blank lines
 * (a list's items and a table's rows each a block), a block into sentences; each piece
 * with the signals a translation keeps without a dictionary (numbers, code tokens,
 * names) and its content words. The text is read once, at the finest level; a piece
 * holding others adds theirs up.
 */

/** What the finest pieces hold: their content words as written (lowercase) and their language evidence. */
interface Leaf {
  /** Content words, lowercase with accents (what stemmers take), stop words out. */
  words: string[];
  /** Evidence for Spanish minus evidence for English (`languageBalance`). */
  balance: number;
}

/** One piece of a document at some level, with what aligning it needs. */
export interface Segment {
  /** Content words: how long it is, language-neutrally enough. */
  length: number;
  /** Tokens a translation keeps as they are: numbers, code and command names, paths, URLs, capitalised names. */
  anchors: ReadonlySet<string>;
  /** Finer pieces (sections hold blocks, blocks hold sentences); none at the finest level. */
  children: Segment[];
  /** The finest level's own words. */
  leaf?: Leaf;
}

const LIST_ITEM = /^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+/;
const TABLE_ROW = /^\s*\|/;
const TABLE_RULE = /^\s*\|?[\s:|-]+\|[\s:|-]*$/;
// Sentence ends: `. ` `? ` `! ` `; ` followed by a capital, digit, quote or opening mark.
const SENTENCE_END = /(?<=[.!?;])\s+(?=[\p{Lu}\p{N}¿¡"'(`])/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const HAS_DIGIT = /\p{N}/u;
const HAS_LETTER = /\p{L}/u;
const CODE_CHARS = /[/_.:=$~@-]/;
const CAPITALISED = /^\p{Lu}[\p{L}\p{N}]*$/u;
// What ends a sentence (so that the next word's capital says nothing) or opens a line.
const SENTENCE_CLOSERS = new Set([...'.!?:¿¡'].map((ch) => ch.charCodeAt(0)));
const LINE_OPENERS = new Set([...'¿¡#>|*+-'].map((ch) => ch.charCodeAt(0)));
// ñ ¿ ¡ á é í ó ú and the capitals that lowercase to them.
const SPANISH_MARK_CODES = new Set([...'ñ¿¡áéíóúÑÁÉÍÓÚ'].map((ch) => ch.charCodeAt(0)));

/** How many of `text`'s characters are Spanish marks once lowercased, counted without a lowercased copy. */
function spanishMarks(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xa0 && SPANISH_MARK_CODES.has(c)) count += 1;
  }
  return count;
}

// Words repeat: fold each once. Bounded, as the stemmers' cache is.
const FOLDED = new Map<string, string>();
function folded(word: string): string {
  let out = FOLDED.get(word);
  if (out === undefined) {
    out = fold(word);
    if (FOLDED.size >= 200_000) FOLDED.clear();
    FOLDED.set(word, out);
  }
  return out;
}

/** A letter or digit (ASCII first: most characters of technical text are). */
function isWordChar(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  if (c < 128) return (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
  return WORD_CHAR.test(text[at]!);
}

/** A whitespace-separated token without the punctuation around it (a path keeps its leading `/`). */
function trimPunctuation(raw: string): string {
  let start = 0;
  let end = raw.length;
  while (start < end && !isWordChar(raw, start) && raw[start] !== '/') start++;
  while (end > start && !isWordChar(raw, end - 1) && raw[end - 1] !== '/') end--;
  return start === 0 && end === raw.length ? raw : raw.slice(start, end);
}

/** The anchors of a text: numbers (each run of digits), code-like tokens whole, capitalised words not starting a sentence. */
export function anchorsOf(text: string): ReadonlySet<string> {
  let out: Set<string> | undefined;
  const add = (token: string) => {
    out ??= new Set();
    out.add(token);
  };
  let sentenceStart = true;
  const n = text.length;
  let i = 0;
  while (i < n) {
    // One whitespace-separated token at a time, classified by its characters as it is read.
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    if (i >= n) break;
    const start = i;
    let digits = false;
    let letters = false;
    let upper = false;
    let codeChar = false;
    let digitRun = -1;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (isSpace(c)) break;
      if (c >= 48 && c <= 57) {
        digits = true;
        if (digitRun < 0) digitRun = i;
        continue;
      }
      if (digitRun >= 0) {
        add(text.slice(digitRun, i));
        digitRun = -1;
      }
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) letters = true;
      else if (c > 127) {
        if (WORD_CHAR.test(text[i]!)) {
          letters = true;
          // Other scripts' digits count as digits (`\p{N}`), though not as numbers of their own.
          if (HAS_DIGIT.test(text[i]!)) digits = true;
        }
      } else if (CODE_CHAR_CODES.has(c) && i > start) codeChar = true;
      if (i === start) upper = (c >= 65 && c <= 90) || (c > 127 && text[i] !== text[i]!.toLowerCase());
    }
    if (digitRun >= 0) add(text.slice(digitRun, i));
    const raw = text.slice(start, i);
    if (letters && (digits || codeChar || upper || raw.startsWith('`') || !isWordChar(raw, 0))) {
      const token = trimPunctuation(raw);
      if (token.length > 1) {
        const code = digits || CODE_CHARS.test(token.slice(1, -1)) || raw.startsWith('`');
        if (code ? HAS_LETTER.test(token) : !sentenceStart && CAPITALISED.test(token)) {
          const f = folded(token);
          if (code || !isSearchStopword(f)) add(f);
        }
      }
    }
    sentenceStart = SENTENCE_CLOSERS.has(raw.charCodeAt(raw.length - 1)) || LINE_OPENERS.has(raw.charCodeAt(0));
  }
  return out ?? NONE;
}

const CODE_CHAR_CODES = new Set([...'/_.:=$~@-'].map((ch) => ch.charCodeAt(0)));

function isSpace(c: number): boolean {
  return (
    c === 32 ||
    c === 10 ||
    c === 9 ||
    c === 13 ||
    c === 12 ||
    c === 11 ||
    c === 160 ||
    (c > 0x1fff && (c <= 0x200a || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000)) ||
    c === 0x1680 ||
    c === 0xfeff
  );
}

// Most sentences have no anchor: they share one empty set.
const NONE: ReadonlySet<string> = new Set();

function leafOf(text: string): Leaf {
  const out: string[] = [];
  let balance = 0;
  const accented = accentedWords(text);
  const plain = words(text);
  // The two cuts agree but for compatibility characters (D-150): then each word is folded alone.
  const foldedAt = plain.length === accented.length ? (k: number) => plain[k]! : (k: number) => folded(accented[k]!);
  for (let k = 0; k < accented.length; k++) {
    const f = foldedAt(k);
    if (ONLY_SPANISH.has(f)) balance += 1;
    else if (ONLY_ENGLISH.has(f)) balance -= 1;
    if (!isSearchStopword(f) && (f.length > 1 || (f >= '0' && f <= '9'))) out.push(accented[k]!);
  }
  balance += 0.5 * spanishMarks(text);
  return { words: out, balance };
}

/** The finest level: a piece read from its own text; its anchors are the text's unless given. */
export function segment(text: string, anchors: ReadonlySet<string> = anchorsOf(text)): Segment {
  const leaf = leafOf(text);
  return { length: leaf.words.length, anchors, children: [], leaf };
}

/** A piece holding `children`: their lengths and anchors added up. */
export function group(children: Segment[]): Segment {
  if (children.length === 1) return { length: children[0]!.length, anchors: children[0]!.anchors, children };
  let anchors: Set<string> | undefined;
  let length = 0;
  for (const child of children) {
    length += child.length;
    if (child.anchors.size) {
      anchors ??= new Set();
      for (const a of child.anchors) anchors.add(a);
    }
  }
  return { length, anchors: anchors ?? NONE, children };
}

/** The finest pieces under `s`, in order. */
function leaves(s: Segment, out: Leaf[] = []): Leaf[] {
  if (s.leaf) out.push(s.leaf);
  for (const child of s.children) leaves(child, out);
  return out;
}

/** The language a piece is written in: the function words only one language writes, and Spanish marks; `fallback` on a tie. */
export function languageOf(s: Segment, fallback: Language): Language {
  let balance = 0;
  for (const leaf of leaves(s)) balance += leaf.balance;
  return balance > 0 ? 'es' : balance < 0 ? 'en' : fallback;
}

/** A piece's content stems in `lang`, in order, repeats kept (as retrieval's analysis stems them). */
export function stemsOf(s: Segment, lang: Language): string[] {
  const out: string[] = [];
  for (const leaf of leaves(s)) for (const word of leaf.words) out.push(snowballStem(word, lang));
  return out;
}

/**
 * A document's text from its chunks in order: a block of a chunk that the previous chunk
 * already holds (the section heading and the overlap the chunker repeats) is left out.
 */
export function documentText(chunks: readonly string[]): string {
  const out: string[] = [];
  let previous = '';
  for (const chunk of chunks) {
    for (const block of chunk.split(/\n\s*\n/)) {
      const trimmed = block.trim();
      if (trimmed && !previous?.includes(trimmed)) out.push(trimmed);
    }
    previous = chunk;
  }
  return out.join('\n\n');
}

/** A block's sentences, or for a list or table its items or rows. */
function sentencesOf(block: string): Segment[] {
  const lines = block
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length > 1 && lines.every((l) => TABLE_ROW.test(l))) return lines.filter((l) => !TABLE_RULE.test(l)).map((l) => segment(l));
  if (lines.length > 1 && LIST_ITEM.test(lines[0]!)) {
    const items: string[] = [];
    for (const line of lines) {
      if (LIST_ITEM.test(line) || items.length === 0) items.push(line);
      else items[items.length - 1] += ` ${line}`;
    }
    return items.map((i) => segment(i));
  }
  const parts = block
    .replace(/\s+/g, ' ')
    .split(SENTENCE_END)
    .map((s) => s.trim())
    .filter(Boolean);
  return parts.length > 1 ? parts.map((s) => segment(s)) : [];
}

/**
 * A document cut into sections (at every heading; text before the first one is a
 * section without heading), each holding its heading as a block of its own and its
 * blocks, each block its sentences.
 */
export function sections(text: string): Segment[] {
  const out: Segment[] = [];
  let blocks: Segment[] = [];
  let lines: string[] = [];
  const flushBlock = () => {
    const block = lines.join('\n').trim();
    lines = [];
    if (!block) return;
    const parts = sentencesOf(block);
    blocks.push(parts.length ? group(parts) : segment(block));
  };
  const flushSection = () => {
    flushBlock();
    if (blocks.length) out.push(group(blocks));
    blocks = [];
  };
  const textLines = text.split('\n');
  // A `#` line in a code block is a prompt or a comment, not a section's start (D-1046).
  const headings = headingLines(textLines, text);
  for (const [i, line] of textLines.entries()) {
    if (headings[i]) {
      flushSection();
      const heading = withoutNumbering(line.replace(HEADING_MARKS, ''));
      // The heading keeps its numbering as an anchor: `3.2.1.` is the same in both languages.
      if (heading) blocks.push(segment(heading, anchorsOf(line)));
    } else if (line.trim() === '') flushBlock();
    else lines.push(line);
  }
  flushSection();
  return out;
}

/** What finding twins needs of a whole document, read in one pass (its pieces are cut only if it has a twin). */
export interface DocumentFeatures {
  lang: Language;
  /** Content words. */
  length: number;
  /** Folded content words of more than two letters, each once. */
  words: Set<string>;
  anchors: ReadonlySet<string>;
}

/** A document's language (block by block, most content words; `fallback` on a tie), length, words and anchors. */
export function documentFeatures(text: string, fallback: Language): DocumentFeatures {
  const set = new Set<string>();
  let es = 0;
  let en = 0;
  for (const block of text.split(/\n\s*\n/)) {
    let balance = 0;
    let length = 0;
    for (const w of words(block)) {
      if (ONLY_SPANISH.has(w)) balance += 1;
      else if (ONLY_ENGLISH.has(w)) balance -= 1;
      if (isSearchStopword(w) || (w.length < 2 && !(w >= '0' && w <= '9'))) continue;
      length += 1;
      if (w.length > 2) set.add(w);
    }
    balance += 0.5 * spanishMarks(block);
    if (balance > 0 || (balance === 0 && fallback === 'es')) es += length;
    else en += length;
  }
  return { lang: es > en ? 'es' : en > es ? 'en' : fallback, length: es + en, words: set, anchors: anchorsOf(text) };
}
