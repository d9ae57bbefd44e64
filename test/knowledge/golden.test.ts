import { describe, expect, it } from 'vitest';
import { fileEmulator, workspace } from '../support/emulator.js';
import { GOLDEN, fingerprint } from './golden.js';
import { addText, settled } from './support.js';

const emulator = await fileEmulator({ seed: 10 });

describe('golden documents', () => {
  it.each(GOLDEN)('"$title" always gives the same chunks, token counts, language, summary and vectors', async ({ title, text, expected }) => {
    const { api, workspaceId } = await workspace(emulator);
    const source = await settled(emulator, api, await addText(api, { title, text }));
    expect({ lang: source.lang, chunkCount: source.chunkCount, tokenCount: source.tokenCount, summary: source.summary }).toEqual({
      lang: expected.lang,
      chunkCount: expected.chunkCount,
      tokenCount: expected.tokenCount,
      summary: expected.summary,
    });
    const chunks = await emulator.service.knowledge.index.eligibleChunks(workspaceId, 'agt_any');
    expect(chunks.map((c) => c.tokenCount)).toEqual(expected.chunkTokens);
    expect(chunks.every((c) => c.tokenCount >= 100 && c.tokenCount <= 500)).toBe(true);
    expect(fingerprint(chunks)).toBe(expected.fingerprint);
  });
});
