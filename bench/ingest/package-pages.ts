import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import type { CorpusDocument } from '../relevance/corpora/reference-reader.js';

/**
 * The Debian packages' own HTML, as a user who uploads a manual has it (D-1199): whole
 * pages with their navigation, no `<main>`, in the directories the packages install.
 */
const DIRS: Record<'en' | 'es', string[]> = {
  en: [
    '/usr/share/doc/debian-handbook/html/en-US',
    '/usr/share/doc/installation-guide-amd64/en',
    '/usr/share/doc/aptitude/html/en',
    '/usr/share/doc/harden-doc/html/en-US',
    '/usr/share/doc/abs-guide/html',
  ],
  es: [
    '/usr/share/doc/debian-handbook/html/es-ES',
    '/usr/share/doc/installation-guide-amd64/es',
    '/usr/share/doc/aptitude/html/es',
    '/usr/share/doc/harden-doc/html/es-ES',
  ],
};

/** The packages these pages come from (`apt-get install -y ...`). */
export const PACKAGE_PAGES_HINT = 'apt-get install -y debian-handbook installation-guide-amd64 aptitude-doc-en aptitude-doc-es harden-doc abs-guide';

export function packagePagesInstalled(): boolean {
  return [...DIRS.en, ...DIRS.es].every((dir) => existsSync(dir));
}

/**
 * `BENCH_INGEST_PAGES=package`: the held-out set's counts (281 English and 248 Spanish
 * pages) taken from the packages' HTML files, mixed across the packages in an order
 * fixed by a hash of each path (the same pages on every run), each uploaded as the file
 * it is. Larger than the held-out set (about 8 MB against 3.6 MB): these pages are
 * whole chapters and sections with their chrome.
 */
export function packagePages(): CorpusDocument[] {
  const pick = (lang: 'en' | 'es', n: number) =>
    DIRS[lang]
      .flatMap((dir) =>
        readdirSync(dir)
          .filter((f) => f.endsWith('.html'))
          .map((f) => join(dir, f)),
      )
      .map((path) => ({ path, order: createHash('sha256').update(path).digest('hex') }))
      .sort((a, b) => (a.order < b.order ? -1 : 1))
      .slice(0, n)
      .map(({ path }): CorpusDocument => {
        const html = readFileSync(path, 'utf8');
        const key = `${path.replace('/usr/share/doc/', '').replace(/\//g, '_')}@${lang}`;
        const { document } = parseHTML(html);
        const title = (document.querySelector('title')?.textContent ?? key).trim();
        return { key, section: key, lang, title, html, text: document.body?.textContent ?? '' };
      });
  return [...pick('en', 281), ...pick('es', 248)].sort((a, b) => (a.key < b.key ? -1 : 1));
}
