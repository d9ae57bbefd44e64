import { blindCorpora } from './blind.js';
import type { Corpus } from './corpus.js';
import { handbook } from './handbook.js';
import { installationGuide } from './installation.js';
import { reference } from './reference.js';

export type { Corpus };

/** Every corpus of the protocol: the development set, the two check corpora, then the two blind ones. */
export async function allCorpora(): Promise<Corpus[]> {
  return [reference, handbook, installationGuide, ...blindCorpora];
}
