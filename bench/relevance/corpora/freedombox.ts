import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Corpus, UploadDocument } from './corpus.js';
import { everyThirdSpanishOnly, labelledQuestions } from './pages.js';

export const FREEDOMBOX_DIR = '/usr/share/freedombox/manual';

/** The whole manual concatenated into one page (in both languages); `es/` also holds `Manual.part.html`, another whole copy, which is not listed since pages are listed from `en/`. */
const WHOLE_MANUAL = 'freedombox-manual.part.html';

/**
 * The pages are fragments, not documents: each is `<section class="article">...</section>`
 * (DocBook output of the wiki export) with no `<html>`, `<head>` or `<title>`. Each is wrapped
 * as a minimal document, its `<title>` the text of its first `<h2>` (the wiki page name, e.g.
 * `Syncthing`, the same in both languages), the fragment unchanged as the `<body>`.
 */
function wrapped(fragment: string, lang: 'en' | 'es'): string {
  const h2 = /<h2\b[^>]*>([\s\S]*?)<\/h2>/.exec(fragment);
  const title = (h2?.[1] ?? '')
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title></head><body>${fragment}</body></html>`;
}

/**
 * The FreedomBox user manual (`freedombox-doc-en`, `freedombox-doc-es`), one document per
 * page (`<Page>.part.html`), English and Spanish, every third page in Spanish only. Some
 * Spanish pages are the English text left untranslated (the board pages, `Debian`,
 * `ReleaseNotes`, `USBWiFi`, `VirtualBox`). Questions: `freedombox-manual.json`, written by
 * reading the pages before any ranking ran on them.
 */
export const freedombox: Corpus = {
  name: 'freedombox-manual',
  role: 'check',
  packages: ['freedombox-doc-en', 'freedombox-doc-es'],
  installed: () => existsSync(join(FREEDOMBOX_DIR, 'en')) && existsSync(join(FREEDOMBOX_DIR, 'es')),
  documents() {
    const pages = readdirSync(join(FREEDOMBOX_DIR, 'en'))
      .filter((f) => f.endsWith('.part.html') && f !== WHOLE_MANUAL)
      .sort();
    return everyThirdSpanishOnly(pages, (page, lang) => join(FREEDOMBOX_DIR, lang, page)).map((d): UploadDocument => ({ ...d, html: wrapped(d.html, d.lang) }));
  },
  questions: (docs) => labelledQuestions(new URL('./freedombox-manual.json', import.meta.url), docs),
};
