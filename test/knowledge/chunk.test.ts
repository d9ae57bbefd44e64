import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHUNKING, chunkMarkdown } from '../../src/knowledge/pipeline/chunk.js';
import {
  bounded,
  countByParagraphs,
  countJoined,
  loadTokenizer,
  encodingFromTable,
  MERGE_CACHE_ENTRIES,
  remembering,
} from '../../src/knowledge/pipeline/tokens.js';
import { encodeRankTable, RANK_TABLE_FILE, RankTable } from '../../src/knowledge/pipeline/rank-table.js';

const tokenizer = await loadTokenizer();

const sentence = (topic: string, i: number) => `The ${topic} policy number ${i} explains how customers are served and what they can expect from us.`;
const paragraph = (topic: string, from: number, n = 4) => Array.from({ length: n }, (_, i) => sentence(topic, from + i)).join(' ');
const section = (title: string, paragraphs: number) =>
  `## ${title}\n\n${Array.from({ length: paragraphs }, (_, i) => paragraph(title.toLowerCase(), i * 4)).join('\n\n')}`;

describe('token counts', () => {
  it('come from the o200k_base BPE tokenizer and treat special-token text as text', () => {
    expect(tokenizer.name).toBe('o200k_base');
    expect(tokenizer.count('hello world')).toBe(2);
    expect(tokenizer.count('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('stay linear past the merge cache: it is emptied between calls, never trimmed word by word (D-1157)', async () => {
    const { GptEncoding } = await import('gpt-tokenizer/GptEncoding');
    const { default: ranks } = await import('gpt-tokenizer/esm/bpeRanks/o200k_base');
    const api = GptEncoding.getEncodingApi('o200k_base', () => ranks);
    // The package trims its cache by looking up the Map's first key; V8 walks every deleted slot to find it.
    let firstKeyLookups = 0;
    class Watched<K, V> extends Map<K, V> {
      override keys() {
        firstKeyLookups += 1;
        return super.keys();
      }
    }
    const core = (api as unknown as { bytePairEncodingCoreProcessor: { mergeCache: Map<string, number[]> } }).bytePairEncodingCoreProcessor;
    core.mergeCache = new Watched();
    const counted = bounded(api);
    // Words no vocabulary holds whole (part numbers, names, junk), 30,000 distinct ones per document.
    const word = (i: number) => Array.from({ length: 6 }, (_, k) => String.fromCharCode(97 + (Math.floor((i * 7919) / 26 ** k) % 26))).join('');
    for (let batch = 0; batch < 4; batch++) {
      const text = Array.from({ length: 30_000 }, (_, i) => word(batch * 30_000 + i)).join(' ');
      const n = counted.countTokens(text, { disallowedSpecial: new Set() });
      if (batch === 3) expect(n).toBe(tokenizer.count(text));
      expect(core.mergeCache.size).toBeLessThanOrEqual(MERGE_CACHE_ENTRIES);
    }
    expect(firstKeyLookups).toBe(0);
  });
});

describe('the rank table the bundle reads (D-1214)', async () => {
  const { default: packaged } = await import('gpt-tokenizer/esm/bpeRanks/o200k_base');
  const own = (await import('gpt-tokenizer')).default;
  const table = encodeRankTable(packaged);
  const AS_TEXT = { disallowedSpecial: new Set<string>() };
  const texts = [
    'hello world',
    '<|endoftext|> as text',
    '¿Cómo configuro la red? Ñandú, pingüino, acción.',
    'Box-drawing ─┼─ and CJK 中文字符 and emoji 🙂🚀 and a lone \uD83D surrogate',
    `${'x'.repeat(300)} then a long run and \u00e9\u0301 combining marks`,
    // Bytes no token holds as text: a lone continuation byte's neighbours, Latin-1 read as UTF-8.
    '\u0080\u00ff\u0100 ÿþ \u{10FFFF} \uFFFD\uFFFD',
    readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8'),
  ];

  it('looks up every token of the package as its Map does, and misses what is no token', () => {
    const read = RankTable.read(table)!;
    let strings = 0;
    const wrong: string[] = [];
    packaged.forEach((token, rank) => {
      if (typeof token !== 'string') return;
      strings += 1;
      if (read.get(token) !== rank) wrong.push(token);
    });
    expect(wrong).toEqual([]);
    expect(read.size).toBe(strings);
    expect(read.binaries.length + strings).toBe(Object.keys(packaged).length);
    for (const miss of ['', 'qzxqzxqzx', ' supercalifragilisticexpialidocious', '\uD83D']) expect(read.get(miss)).toBeUndefined();
    // Every token by rank again, for decoding.
    const ranks = read.ranks();
    const decoded = ranks.map((token) => (typeof token === 'string' ? token : [...token]));
    expect(decoded).toEqual(packaged);
  });

  it("counts, encodes and decodes every text as the package's own module does", async () => {
    const fromTable = (await encodingFromTable(table))!;
    expect(fromTable).toBeDefined();
    for (const text of texts) {
      expect(fromTable.countTokens(text, AS_TEXT), text.slice(0, 40)).toBe(own.countTokens(text, AS_TEXT));
      const tokens = fromTable.encode(text, AS_TEXT);
      expect(tokens, text.slice(0, 40)).toEqual(own.encode(text, AS_TEXT));
      expect([...fromTable.decodeGenerator(tokens)].join('')).toBe([...own.decodeGenerator(tokens)].join(''));
    }
  });

  it('is no table in bytes of another byte order or cut short, and the package is read instead', async () => {
    const swapped = new Uint8Array(table.slice(0, 64));
    swapped.subarray(0, 4).reverse();
    expect(RankTable.read(swapped)).toBeUndefined();
    expect(RankTable.read(table.slice(0, 12))).toBeUndefined();
    expect(await encodingFromTable(swapped)).toBeUndefined();
  });

  const built = join(import.meta.dirname, '..', '..', 'dist', RANK_TABLE_FILE);
  it.runIf(existsSync(built))("is, in the build, the installed package's vocabulary", () => {
    expect(Buffer.compare(readFileSync(built), Buffer.from(table))).toBe(0);
  });
});

describe('chunking', () => {
  it('keeps a short document in one chunk with its exact token count', async () => {
    const chunks = await chunkMarkdown('# Hours\n\nWe open at nine.', tokenizer);
    expect(chunks).toEqual([{ text: '# Hours\n\nWe open at nine.', tokenCount: tokenizer.count('# Hours\n\nWe open at nine.') }]);
  });

  it('follows headings: once a chunk is big enough, each section starts a new one', async () => {
    const doc = ['# Handbook', section('Returns', 5), section('Shipping', 5), section('Payments', 5)].join('\n\n');
    const chunks = await chunkMarkdown(doc, tokenizer);
    const starts = chunks.map((c) => c.text.split('\n')[0]);
    expect(starts.filter((s) => s === '## Shipping' || s === '## Payments')).toEqual(['## Shipping', '## Payments']);
    for (const c of chunks) {
      expect(c.tokenCount).toBe(tokenizer.count(c.text));
      expect(c.tokenCount).toBeLessThanOrEqual(CHUNKING.maxTokens);
    }
  });

  it('cuts long sections into 300 to 500 tokens between paragraphs, each chunk opening with the section heading and a small overlap', async () => {
    const doc = section('Warranty', 30);
    const chunks = await chunkMarkdown(doc, tokenizer);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks.slice(0, -1)) {
      expect(c.tokenCount).toBeGreaterThanOrEqual(CHUNKING.minTokens);
      expect(c.tokenCount).toBeLessThanOrEqual(CHUNKING.maxTokens);
    }
    for (const [i, c] of chunks.entries()) {
      expect(c.text.startsWith('## Warranty\n\n')).toBe(true);
      if (i === 0) continue;
      // The overlap: the previous chunk's last sentences open this one again.
      const overlap = c.text.slice('## Warranty\n\n'.length).split('\n\n')[0]!;
      expect(chunks[i - 1]!.text.endsWith(` ${overlap}`)).toBe(true);
      expect(tokenizer.count(overlap)).toBeGreaterThan(0);
      expect(tokenizer.count(overlap)).toBeLessThanOrEqual(CHUNKING.overlapTokens);
    }
    // Apart from the repeated heading and overlap, nothing is lost or invented.
    const body = doc.split('\n\n').slice(1);
    for (const p of body) expect(chunks.some((c) => c.text.includes(p))).toBe(true);
  });

  it('splits a paragraph longer than a chunk at sentences, a sentence longer than a chunk between words (D-1159), and a "word" longer than a chunk by characters', async () => {
    const long = Array.from({ length: 120 }, (_, i) => sentence('returns', i)).join(' ');
    const chunks = await chunkMarkdown(long, tokenizer);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(CHUNKING.maxTokens);
      expect(c.text).toMatch(/^The returns policy number \d+/);
    }
    // A list with no sentence end (part numbers, a flattened table): every word stays whole, in order.
    const parts = Array.from({ length: 900 }, (_, i) => `zq${(i * 7919) % 100_000}x`);
    const listed = await chunkMarkdown(`Parts in stock ${parts.join(' ')}`, tokenizer);
    expect(listed.length).toBeGreaterThan(2);
    for (const c of listed) expect(c.tokenCount).toBeLessThanOrEqual(CHUNKING.maxTokens);
    expect(listed.flatMap((c) => c.text.split(/\s+/))).toEqual(['Parts', 'in', 'stock', ...parts]);
    const blob = `Key: ${'A1b2C3d4'.repeat(600)}`;
    const pieces = await chunkMarkdown(blob, tokenizer);
    expect(pieces.length).toBeGreaterThan(1);
    for (const c of pieces) expect(c.tokenCount).toBeLessThanOrEqual(CHUNKING.maxTokens);
    expect(
      pieces
        .map((c) => c.text)
        .join('')
        .replace(/\s/g, ''),
    ).toContain('A1b2C3d4'.repeat(600));
  });

  it('keeps lists, tables and code blocks whole when they fit', async () => {
    const doc = '## Prices\n\n| Plan | Price |\n|---|---|\n| Basic | 10 |\n| Pro | 25 |\n\n- one\n- two\n\n```\ncode here\n```';
    const [chunk] = await chunkMarkdown(doc, tokenizer);
    expect(chunk!.text).toBe(doc);
  });

  it('cuts a code block longer than a chunk between lines, each piece fenced as code with its indentation (D-1011)', async () => {
    const lines = Array.from({ length: 160 }, (_, i) => (i % 4 ? `    option-${i} = value ${i} # comment on setting ${i}` : `[section-${i}]`));
    const code = ['````ini', ...lines, '```not a fence', '````'].join('\n');
    const doc = `## Configuration\n\nThe file reads:\n\n${code}\n\nThat is all.`;
    const chunks = await chunkMarkdown(doc, tokenizer);
    expect(chunks.length).toBeGreaterThan(2);
    const seen: string[] = [];
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(CHUNKING.maxTokens);
      for (const block of c.text.split(/\n\n(?=[^ ])/)) {
        if (!block.startsWith('````')) continue;
        expect(block.startsWith('````ini\n')).toBe(true);
        expect(block.endsWith('\n````')).toBe(true);
        seen.push(...block.split('\n').slice(1, -1));
      }
    }
    // Every line once, whole and in order: no overlap repeats a piece of code.
    expect(seen).toEqual([...lines, '```not a fence']);
    expect(chunks.at(-1)!.text.endsWith('That is all.')).toBe(true);
  });

  it('gives the same chunks on every run', async () => {
    const doc = [section('Alpha', 7), section('Beta', 3), section('Gamma', 9)].join('\n\n');
    const first = await chunkMarkdown(doc, tokenizer);
    expect(await chunkMarkdown(doc, tokenizer)).toEqual(first);
  });
});

describe('token counts from parts (D-1001)', () => {
  // Pieces that meet at a blank line in every way o200k's pre-tokenizer treats differently:
  // letters, digits, marks, punctuation that takes line ends (and a slash after them),
  // contractions, white space of several kinds, scripts without spaces, emoji, astral
  // letters, special-token text, and runs long enough to be counted in slices.
  const atoms = [
    'a',
    'Z',
    'é',
    'e\u0301',
    '9',
    '12345',
    '.',
    ',',
    '/',
    '!',
    '`',
    '```',
    '|',
    '-',
    '(',
    ')',
    "'s",
    "'",
    ' ',
    '  ',
    '\n',
    '\n\n',
    '\t',
    '\u00a0',
    '中文',
    '😀',
    '𝐀',
    '<|endoftext|>',
    '#',
    '*',
    'x'.repeat(300),
    '/'.repeat(270),
    ':',
    '\u0301',
    '١٢',
  ];
  let seed = 25;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const piece = () => Array.from({ length: 1 + Math.floor(random() * 6) }, () => atoms[Math.floor(random() * atoms.length)]).join('');

  it('a chunk of several blocks counts exactly what the tokenizer counts for its joined text', () => {
    for (let i = 0; i < 5000; i++) {
      const parts = Array.from({ length: 2 + Math.floor(random() * 3) }, () => (random() < 0.5 ? piece().trim() || 'a' : piece())).map((text) => ({
        text,
        tokens: tokenizer.count(text),
      }));
      expect(countJoined(tokenizer, parts), JSON.stringify(parts.map((p) => p.text))).toBe(tokenizer.count(parts.map((p) => p.text).join('\n\n')));
    }
  });

  it('a document counts exactly what the tokenizer counts for it, its paragraphs remembered from its blocks', () => {
    for (let i = 0; i < 3000; i++) {
      const doc = Array.from({ length: 1 + Math.floor(random() * 5) }, piece).join(random() < 0.7 ? '\n\n' : atoms[Math.floor(random() * atoms.length)]!);
      const counting = remembering(tokenizer);
      if (random() < 0.5) for (const p of doc.split('\n\n')) counting.count(p);
      expect(countByParagraphs(counting, doc), JSON.stringify(doc)).toBe(tokenizer.count(doc));
    }
  });

  it('every chunk of real documents reports the count of its own text', async () => {
    const doc = [
      '# Packages',
      'Install one with `apt install foo`. Remove it again:',
      '```\napt remove foo\n```',
      '/etc/apt/sources.list lists where packages come from.',
      '| file | use |\n|---|---|\n| /etc/hosts | names |',
      '- one\n- two!',
      '## Réseau',
      "Le fichier /etc/network/interfaces décrit l'interface.",
      section('Shipping', 12),
    ].join('\n\n');
    for (const c of await chunkMarkdown(doc, tokenizer)) expect(c.tokenCount).toBe(tokenizer.count(c.text));
  });
});
