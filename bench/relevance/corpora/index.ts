import { existsSync, readdirSync } from 'node:fs';
import type { Corpus } from './corpus.js';
import { handbook } from './handbook.js';
import { installationGuide } from './installation.js';
import { reference } from './reference.js';

export type { Corpus };

const BLIND_DIR = new URL('./blind/', import.meta.url);

/**
 * Every corpus of the protocol: the development set, the check corpora, then the blind
 * ones, each a module of `corpora/blind/` exporting one `Corpus` (or several) however it
 * names them; a blind corpus is marked so whatever its module says.
 */
export async function allCorpora(): Promise<Corpus[]> {
  const blind: Corpus[] = [];
  const files = existsSync(BLIND_DIR) ? readdirSync(BLIND_DIR).filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts')).sort() : [];
  for (const file of files) {
    const mod = (await import(new URL(file, BLIND_DIR).href)) as Record<string, unknown>;
    for (const value of Object.values(mod)) if (isCorpus(value)) blind.push({ ...value, role: 'blind' });
  }
  return [reference, handbook, installationGuide, ...blind];
}

function isCorpus(value: unknown): value is Corpus {
  const c = value as Partial<Corpus> | undefined;
  return typeof c === 'object' && c !== null && typeof c.name === 'string' && typeof c.documents === 'function' && typeof c.questions === 'function' && typeof c.installed === 'function';
}
