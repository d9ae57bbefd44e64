import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { capturedCorpora } from '../experiments/captures.js';
import { load } from '../experiments/variants.js';

describe('the experiments replay no blind corpus', () => {
  let dir = '';
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    vi.restoreAllMocks();
  });

  it('leaves a blind capture out of every replay, and says so', () => {
    dir = mkdtempSync(join(tmpdir(), 'captures-'));
    for (const name of ['debian-faq', 'kernel-handbook', 'manpages', 'abs-guide'])
      writeFileSync(join(dir, `${name}.chunks.json`), JSON.stringify({ chunks: [], questions: [] }));
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(capturedCorpora(dir)).toEqual(['abs-guide', 'kernel-handbook']);
    expect(load(dir).map((c) => c.name)).toEqual(['abs-guide', 'kernel-handbook']);
    expect(said).toHaveBeenCalledWith(expect.stringContaining('left out, blind: debian-faq, manpages'));
  });
});
