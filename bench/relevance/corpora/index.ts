import { absGuide } from './abs-guide.js';
import { aptitude } from './aptitude.js';
import { blindCorpora } from './blind.js';
import type { Corpus } from './corpus.js';
import { freedombox } from './freedombox.js';
import { handbook } from './handbook.js';
import { installationGuide } from './installation.js';
import { kernelHandbook } from './kernel-handbook.js';
import { reference } from './reference.js';
import { securingDebian } from './securing-debian.js';

export type { Corpus };

/**
 * Every corpus of the protocol: the development set, the check corpora (two bilingual books,
 * then two English-only manuals cut into short sections, then an English-only programming
 * guide of long sections around code, then two bilingual manuals of other kinds: a home
 * server's user manual and a tool's manual), then the two blind ones.
 */
export async function allCorpora(): Promise<Corpus[]> {
  return [reference, handbook, installationGuide, securingDebian, kernelHandbook, absGuide, freedombox, aptitude, ...blindCorpora];
}
