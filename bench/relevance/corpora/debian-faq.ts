/**
 * A blind check corpus (a FAQ): the Debian GNU/Linux FAQ (`apt-get install debian-faq`),
 * English only, one document per question of the FAQ (a DocBook section: its own text,
 * without its subsections). Questions in `debian-faq.json`, labelled before any ranking
 * ran on this corpus (README.md beside this file); nothing is tuned on them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import type { Question } from '../metrics.js';
import { byKey, checkedQuestions, escapeHtml, page, squash, type BlindDocument } from './shared.js';

export const FAQ_DIR = '/usr/share/doc/debian/FAQ';

/** The chapters of the FAQ in its own order (`index.en.html` is only a table of contents). */
export const FAQ_CHAPTERS = [
  'basic-defs', 'getting-debian', 'choosing', 'compatibility', 'software', 'ftparchives', 'pkg-basics', 'pkgtools',
  'uptodate', 'kernel', 'customizing', 'support', 'contributing', 'redistributing', 'nextrelease', 'faqinfo',
] as const;

/** As in `../corpus.ts`: a parent section with less own text than this says nothing of its own. */
const MIN_PARENT_TEXT = 150;

export const FAQ_INSTALL_HINT = `the Debian FAQ is not installed under ${FAQ_DIR}; install it with\n  apt-get install -y debian-faq`;

type Element = ReturnType<typeof parseHTML>['document']['body'];
const SECTION_CLASSES = ['section', 'chapter'];
const SKIP_CLASSES = ['titlepage', 'toc', 'footnotes', 'navheader', 'navfooter'];
const isSection = (el: Element): boolean => SECTION_CLASSES.some((c) => el.classList.contains(c));

export function faqInstalled(dir: string = FAQ_DIR): boolean {
  return FAQ_CHAPTERS.every((c) => existsSync(join(dir, `${c}.en.html`)));
}

/**
 * One document per section of every chapter (its heading and own content), key
 * `<chapter>#<anchor>@en`; a chapter or section whose own text is under 150 characters
 * and that has subsections gets none. Uploaded as `<chapter>.<anchor>.html`.
 */
export function faqDocuments(dir: string = FAQ_DIR): BlindDocument[] {
  const docs: BlindDocument[] = [];
  for (const chapter of FAQ_CHAPTERS) {
    const { document } = parseHTML(readFileSync(join(dir, `${chapter}.en.html`), 'utf8'));
    for (const el of document.querySelectorAll('div.chapter, div.section') as Iterable<Element>) {
      const children = [...el.children] as Element[];
      const heading = children.find((c) => c.classList.contains('titlepage'))?.querySelector('h1, h2, h3, h4, h5, h6');
      const anchor = heading?.querySelector('a[id]')?.getAttribute('id');
      if (!heading || !anchor) throw new Error(`${chapter}: a section without a heading anchor`);
      const own = children.filter((c) => !isSection(c) && !SKIP_CLASSES.some((s) => c.classList.contains(s)));
      const text = squash(own.map((c) => c.textContent).join(' '));
      if (children.some(isSection) && text.length < MIN_PARENT_TEXT) continue;
      const title = squash(heading.textContent);
      const level = heading.tagName.slice(1);
      const body = `<h${level}>${escapeHtml(title)}</h${level}>\n${own.map((c) => c.outerHTML).join('\n')}`;
      const section = `${chapter}#${anchor}`;
      docs.push({ key: `${section}@en`, section, lang: 'en', title, html: page(title, 'en', body), text: `${title} ${text}`, filename: `${chapter}.${anchor}.html` });
    }
  }
  return byKey(docs);
}

export function faqQuestions(docs: BlindDocument[]): Question[] {
  return checkedQuestions(new URL('./debian-faq.json', import.meta.url), docs);
}
