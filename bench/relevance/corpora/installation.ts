import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Corpus } from './corpus.js';
import { everyThirdSpanishOnly, labelledQuestions } from './pages.js';

export const INSTALLATION_DIR = '/usr/share/doc/installation-guide-amd64';

/**
 * Pages that are only a table of contents: the title page and the chapter and appendix
 * pages whose text, once their table of contents is removed, is the heading alone (under
 * 20 words). Landing pages with a paragraph of their own (ch01, ch02, ch03, apa, apb) stay.
 */
const NAVIGATION_ONLY = new Set(['index', 'apc', 'apd', 'ape', 'ch04', 'ch05', 'ch06', 'ch07', 'ch08']);

/**
 * Debian's installation guide for amd64 (`installation-guide-amd64`), one document per
 * page, English and Spanish, every third page in Spanish only, table-of-contents pages
 * left out. Questions: `installation-guide.json`, its first 36 written blind (D-711).
 */
export const installationGuide: Corpus = {
  name: 'installation-guide',
  role: 'check',
  packages: ['installation-guide-amd64'],
  installed: () => existsSync(join(INSTALLATION_DIR, 'en')) && existsSync(join(INSTALLATION_DIR, 'es')),
  documents() {
    const pages = readdirSync(join(INSTALLATION_DIR, 'en'))
      .filter((f) => f.endsWith('.html') && !NAVIGATION_ONLY.has(f.replace(/\.html$/, '')))
      .sort();
    return everyThirdSpanishOnly(pages, (page, lang) => join(INSTALLATION_DIR, lang, page));
  },
  questions: (docs) => labelledQuestions(new URL('./installation-guide.json', import.meta.url), docs),
};
