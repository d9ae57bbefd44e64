import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Corpus } from './corpus.js';
import { everyThirdSpanishOnly, labelledQuestions } from './pages.js';

export const HANDBOOK_DIR = '/usr/share/doc/debian-handbook/html';

/**
 * The Debian Administrator's Handbook (`debian-handbook`), one document per page
 * (`sect.*.html`), English and Spanish, every third page in Spanish only. Questions:
 * `debian-handbook.json`, written by reading the pages.
 */
export const handbook: Corpus = {
  name: 'debian-handbook',
  role: 'check',
  packages: ['debian-handbook'],
  installed: () => existsSync(join(HANDBOOK_DIR, 'en-US')) && existsSync(join(HANDBOOK_DIR, 'es-ES')),
  documents() {
    const pages = readdirSync(join(HANDBOOK_DIR, 'en-US')).filter((f) => f.startsWith('sect.') && f.endsWith('.html')).sort();
    return everyThirdSpanishOnly(pages, (page, lang) => join(HANDBOOK_DIR, lang === 'en' ? 'en-US' : 'es-ES', page));
  },
  questions: (docs) => labelledQuestions(new URL('./debian-handbook.json', import.meta.url), docs),
};
