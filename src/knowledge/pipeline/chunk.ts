import type { Token } from 'marked';
import { countJoined, type Tokenizer } from './tokens.js';

export interface ChunkOptions {
  /** A chunk never exceeds this many tokens. */
  maxTokens: number;
  /** A heading starts a new chunk once the current one holds at least this many. */
  minTokens: number;
  /** At most this many tokens of the previous chunk open a chunk cut inside a section. */
  overlapTokens: number;
}

export const CHUNKING: ChunkOptions = { maxTokens: 500, minTokens: 300, overlapTokens: 50 };

export interface Chunk {
  text: string;
  tokenCount: number;
}

interface Unit {
  text: string;
  tokens: number;
  /** Heading depth, for a heading. */
  heading?: number;
  /** Repeated from the previous chunk (section heading, overlap): may give way. */
  context?: boolean;
  /** A fenced code block (or a piece of one): never cut into an overlap. */
  code?: boolean;
}

/** A fenced code block: its opening line, its fence, its lines of code. */
interface Fenced {
  open: string;
  fence: string;
  lines: string[];
}

interface Block {
  text: string;
  heading?: number;
  fenced?: Fenced;
}

// Imported once per thread: an `import()` resolves its specifier again on every call.
let marked: Promise<typeof import('marked')> | undefined;
/** marked's module, loaded on first use. */
export const loadMarked = () => (marked ??= import('marked'));

/**
 * Markdown's top-level blocks as marked's lexer reads them, without the inline pass that
 * `lexer()` runs after the block pass: a block's raw text and a heading's text and depth
 * come from the block pass alone, and the inline pass was a third of the lexer's time.
 */
export async function markdownBlockTokens(markdown: string): Promise<Token[]> {
  const { Lexer } = await loadMarked();
  // lexer() normalises line ends first; so does this.
  return new Lexer().blockTokens(markdown.replace(/\r\n|\r/g, '\n'), []);
}

/** Top-level Markdown blocks (headings, paragraphs, lists, tables, code) from marked's lexer. */
async function markdownBlocks(markdown: string): Promise<Block[]> {
  const out: Block[] = [];
  for (const token of await markdownBlockTokens(markdown)) {
    if (token.type === 'space' || token.type === 'hr' || token.type === 'def') continue;
    if (token.type === 'heading') {
      const text = String(token.text).trim();
      if (text) out.push({ text: `${'#'.repeat(token.depth as number)} ${text}`, heading: token.depth as number });
      continue;
    }
    const text = token.raw.trim();
    if (!text) continue;
    const open = text.split('\n', 1)[0]!;
    const fence = token.type === 'code' ? /^(`{3,}|~{3,})/.exec(open)?.[1] : undefined;
    out.push(token.type === 'code' && fence ? { text, fenced: { open, fence, lines: token.text.split('\n') } } : { text });
  }
  return out;
}

const SENTENCE_END = /(?<=[.!?;:。])\s+|\n+/;

/** Pieces of at most `max` tokens: whole sentences when they fit, else words, else characters. */
function splitUnit(text: string, max: number, tokenizer: Tokenizer): Unit[] {
  const out: Unit[] = [];
  let piece = '';
  let pieceTokens = 0;
  const emit = () => {
    if (piece) out.push({ text: piece, tokens: tokenizer.count(piece) });
    piece = '';
    pieceTokens = 0;
  };
  // A sentence too long is cut between its words (D-1159); only a word too long is cut by characters.
  const push = (part: string, word: boolean) => {
    const tokens = tokenizer.count(part);
    if (tokens > max) {
      emit();
      if (word) {
        // One "word" longer than a chunk (a hash, base64): cut by characters. A UTF-16
        // unit is at most three UTF-8 bytes, so max/3 units are at most max tokens.
        const step = Math.max(1, Math.floor(max / 3));
        for (let i = 0; i < part.length; ) {
          let end = Math.min(part.length, i + step);
          if (end < part.length && /[\uD800-\uDBFF]/.test(part[end - 1]!)) end -= 1;
          out.push({ text: part.slice(i, end), tokens: tokenizer.count(part.slice(i, end)) });
          i = end;
        }
      } else {
        for (const w of part.split(/\s+/).filter(Boolean)) push(w, true);
        emit();
      }
      return;
    }
    if (piece && pieceTokens + tokens + 1 > max) emit();
    piece = piece ? `${piece} ${part}` : part;
    pieceTokens += tokens + (piece === part ? 0 : 1);
  };
  for (const sentence of text.split(SENTENCE_END).filter((s) => s.trim())) push(sentence.trim(), false);
  emit();
  return out;
}

/**
 * A code block longer than a chunk, cut between lines into fenced pieces of at most
 * `max` tokens: each piece reads as code, with its lines and their indentation (D-1011).
 * A line longer than a piece is cut as prose is, in a piece of its own.
 */
function splitCode({ open, fence, lines }: Fenced, max: number, tokenizer: Tokenizer): Unit[] {
  const out: Unit[] = [];
  const wrap = (code: string) => {
    const text = `${open}\n${code}\n${fence}`;
    out.push({ text, tokens: tokenizer.count(text), code: true });
  };
  const room = max - tokenizer.count(open) - tokenizer.count(fence) - 2;
  let piece: string[] = [];
  let pieceTokens = 0;
  const emit = () => {
    if (piece.some((line) => line.trim())) wrap(piece.join('\n'));
    piece = [];
    pieceTokens = 0;
  };
  for (const line of lines) {
    const tokens = tokenizer.count(line) + 1;
    if (tokens > room) {
      emit();
      for (const part of splitUnit(line, room, tokenizer)) wrap(part.text);
      continue;
    }
    if (pieceTokens + tokens > room) emit();
    piece.push(line);
    pieceTokens += tokens;
  }
  emit();
  return out;
}

/** The last sentences of a unit that fit in `budget` tokens (the overlap), or nothing. */
function tail(unit: Unit, budget: number, tokenizer: Tokenizer): Unit | undefined {
  if (unit.tokens <= budget) return unit;
  if (unit.code) return undefined;
  const sentences = unit.text.split(/(?<=[.!?])\s+/);
  let text = '';
  for (let i = sentences.length - 1; i > 0; i--) {
    const candidate = text ? `${sentences[i]} ${text}` : sentences[i]!;
    if (tokenizer.count(candidate) > budget) break;
    text = candidate;
  }
  return text ? { text, tokens: tokenizer.count(text) } : undefined;
}

/**
 * Splits Markdown into chunks of about `minTokens`..`maxTokens` tokens that follow its
 * structure: a heading starts a new chunk once the current one is big enough, blocks
 * are never cut unless one alone is too big (then at sentences), and a chunk cut
 * inside a section opens with that section's heading and a small overlap of the
 * previous chunk's last sentences. A chunk holds at most `maxTokens`, except that a
 * heading always stays with the block under it. Deterministic: same text, same chunks.
 */
export async function chunkMarkdown(markdown: string, tokenizer: Tokenizer, options: ChunkOptions = CHUNKING): Promise<Chunk[]> {
  const { maxTokens: max, minTokens: min, overlapTokens: overlap } = options;
  const units: Unit[] = [];
  for (const block of await markdownBlocks(markdown)) {
    const tokens = tokenizer.count(block.text);
    const { fenced, ...unit } = block;
    if (tokens <= max) units.push({ ...unit, tokens, ...(fenced && { code: true }) });
    else units.push(...(fenced ? splitCode(fenced, max, tokenizer) : splitUnit(block.text, max, tokenizer)));
  }

  const groups: Unit[][] = [];
  let current: Unit[] = [];
  let size = 0;
  let section: Unit | undefined;
  const close = () => {
    if (current.some((u) => u.heading === undefined && !u.context)) groups.push(current);
    current = [];
    size = 0;
  };
  // Blocks are joined by a blank line, one more token between two blocks.
  const cost = (unit: Unit) => unit.tokens + (current.length ? 1 : 0);
  const add = (unit: Unit) => {
    size += cost(unit);
    current.push(unit);
  };

  for (const unit of units) {
    if (unit.heading !== undefined) {
      if (size >= min || size + cost(unit) > max) close();
      section = unit;
      add(unit);
      continue;
    }
    if (current.length > 0 && size + cost(unit) > max) {
      // Headings at the end of a full chunk belong with what follows them.
      const carried: Unit[] = [];
      while (current.length && current[current.length - 1]!.heading !== undefined) carried.unshift(current.pop()!);
      const previous = current.filter((u) => u.heading === undefined);
      close();
      if (carried.length) for (const h of carried) add(h);
      else {
        if (section) add({ ...section, context: true });
        const last = previous[previous.length - 1];
        const lap = last && tail(last, overlap, tokenizer);
        if (lap) add({ ...lap, context: true });
      }
      // Repeated context gives way to the block that must fit; a carried heading stays
      // with its first block even when that passes the maximum by the heading's size.
      while (current.length && current[current.length - 1]!.context && size + cost(unit) > max) {
        const dropped = current.pop()!;
        size -= dropped.tokens + (current.length ? 1 : 0);
      }
    }
    add(unit);
  }
  close();

  // Each unit's count is exact: a chunk's comes from its units' (D-1001), not a second
  // pass of the tokenizer over the whole document.
  return groups.map((group) => ({
    text: group.map((u) => u.text).join('\n\n'),
    tokenCount: countJoined(
      tokenizer,
      group.map((u) => ({ text: u.text, tokens: u.tokens })),
    ),
  }));
}
