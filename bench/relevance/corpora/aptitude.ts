import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Corpus } from './corpus.js';
import { everyThirdSpanishOnly, labelledQuestions } from './pages.js';

export const APTITUDE_DIR = '/usr/share/doc/aptitude/html';

/** The content pages of the DocBook chunked output: preface, chapters and reference entries. */
const CONTENT_PAGE = /^(pr|ch|ap|rn)\d+(s\d+|re\d+)*\.html$/;

/**
 * Pages that are only a table of contents: once their table of contents is removed, their
 * own text is under 150 characters (one sentence saying what the chapter holds, or nothing:
 * ch02s01 122 characters, ch02s02 138, ch02s03, ch02s05 and rn01 none). Landing pages with a
 * paragraph of their own (ch01, ch01s01, ch02, pr01, pr01s04) stay; so does ch02s02s01, a
 * leaf of 160 characters. Left out as well, by the filter above: index.html (title page and
 * table of contents), aptitude.css and the `ld-idm*.html` long descriptions of screenshots
 * (their names differ between the languages).
 */
const NAVIGATION_ONLY = new Set(['ch02s01', 'ch02s02', 'ch02s03', 'ch02s05', 'rn01']);

/**
 * The aptitude user's manual (`aptitude-doc-en`, `aptitude-doc-es`), one document per page
 * present in both languages, English and Spanish, every third page in Spanish only,
 * table-of-contents pages left out. Questions: `aptitude-manual.json`, written and labelled
 * from the pages' text before any ranking ran on them.
 */
export const aptitude: Corpus = {
  name: 'aptitude-manual',
  role: 'check',
  packages: ['aptitude-doc-en', 'aptitude-doc-es'],
  installed: () => existsSync(join(APTITUDE_DIR, 'en')) && existsSync(join(APTITUDE_DIR, 'es')),
  documents() {
    const spanish = new Set(readdirSync(join(APTITUDE_DIR, 'es')));
    const pages = readdirSync(join(APTITUDE_DIR, 'en'))
      .filter((f) => CONTENT_PAGE.test(f) && spanish.has(f) && !NAVIGATION_ONLY.has(f.replace(/\.html$/, '')))
      .sort();
    return everyThirdSpanishOnly(pages, (page, lang) => join(APTITUDE_DIR, lang, page));
  },
  questions: (docs) => labelledQuestions(new URL('./aptitude-manual.json', import.meta.url), docs),
};
