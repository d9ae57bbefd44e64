import { describe, expect, it } from 'vitest';
import { CHUNKING, chunkMarkdown } from '../../src/knowledge/pipeline/chunk.js';
import { loadTokenizer } from '../../src/knowledge/pipeline/tokens.js';

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

  it('splits a paragraph longer than a chunk at sentences, and a "word" longer than a chunk by characters', async () => {
    const long = Array.from({ length: 120 }, (_, i) => sentence('returns', i)).join(' ');
    const chunks = await chunkMarkdown(long, tokenizer);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(CHUNKING.maxTokens);
      expect(c.text).toMatch(/^The returns policy number \d+/);
    }
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
