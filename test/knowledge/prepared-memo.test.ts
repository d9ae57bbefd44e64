import { describe, expect, it } from 'vitest';
import type { DocumentInput, Prepared } from '../../src/knowledge/pipeline/pipeline.js';
import { prepareDocument } from '../../src/knowledge/pipeline/prepare-document.js';
import { PreparedMemo } from '../../src/knowledge/pipeline/prepared-memo.js';

const page = (words: string) =>
  Buffer.from(`<!doctype html><html><head><title>Opening hours</title></head><body><p>${words} We open at nine and close at six.</p></body></html>`);
const input = (bytes: Uint8Array, more: Partial<DocumentInput> = {}): DocumentInput & { embed: boolean } => ({
  kind: 'upload',
  format: 'html',
  bytes,
  fallbackTitle: 'hours.html',
  embed: true,
  ...more,
});

/** The pipeline, counting how often it ran. */
function counted() {
  let runs = 0;
  return {
    runs: () => runs,
    prepare: (i: DocumentInput & { embed: boolean }) => () => {
      runs += 1;
      return prepareDocument(i, i.embed);
    },
  };
}

describe('the pipeline per document content (D-981)', () => {
  it('reads a document uploaded again once, and answers what reading it gives', async () => {
    const memo = new PreparedMemo();
    const pipeline = counted();
    const first = await memo.get(input(page('Hello.')), pipeline.prepare(input(page('Hello.'))));
    const again = await memo.get(input(page('Hello.')), pipeline.prepare(input(page('Hello.'))));
    expect(pipeline.runs()).toBe(1);
    expect(again).toEqual(first);
    expect(again).toEqual(await prepareDocument(input(page('Hello.')), true));
  });

  it('reads it again when its bytes, its title, its format or the embedding asked for differ', async () => {
    const memo = new PreparedMemo();
    const pipeline = counted();
    const variants = [
      input(page('Hello.')),
      input(page('Hello!')),
      input(page('Hello.'), { title: 'Our hours' }),
      input(page('Hello.'), { format: 'text' }),
      input(page('Hello.'), { kind: 'url' }),
      { ...input(page('Hello.')), embed: false },
    ];
    const outputs: Prepared[] = [];
    for (const v of variants) outputs.push(await memo.get(v, pipeline.prepare(v)));
    expect(pipeline.runs()).toBe(variants.length);
    expect(outputs[2]!.title).toBe('Our hours');
    expect(outputs[5]!.vectors).toBeUndefined();
    for (const v of variants) await memo.get(v, pipeline.prepare(v));
    expect(pipeline.runs()).toBe(variants.length);
  });

  it('keeps no failure: a document that failed is read again', async () => {
    const memo = new PreparedMemo();
    let runs = 0;
    const failing = () => {
      runs += 1;
      return Promise.reject(new Error('ran over its time limit'));
    };
    await expect(memo.get(input(page('Hello.')), failing)).rejects.toThrow('time limit');
    await expect(memo.get(input(page('Hello.')), failing)).rejects.toThrow('time limit');
    expect(runs).toBe(2);
    expect(memo.size).toBe(0);
  });

  it('keeps the most recently used documents within its bounds', async () => {
    const byCount = new PreparedMemo(2, 1_000_000);
    const pipeline = counted();
    const [a, b, c] = ['One.', 'Two.', 'Three.'].map((w) => input(page(w)));
    for (const i of [a, b, a, c]) await byCount.get(i!, pipeline.prepare(i!));
    expect(byCount.size).toBe(2);
    expect(pipeline.runs()).toBe(3);
    // `b` was the least recently used: it went; `a` stayed.
    await byCount.get(a!, pipeline.prepare(a!));
    expect(pipeline.runs()).toBe(3);
    await byCount.get(b!, pipeline.prepare(b!));
    expect(pipeline.runs()).toBe(4);

    const byChars = new PreparedMemo(256, 10);
    await byChars.get(a!, pipeline.prepare(a!));
    expect(byChars.size).toBe(0);
  });
});
