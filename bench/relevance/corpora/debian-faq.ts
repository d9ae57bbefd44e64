/**
 * A blind check corpus (a FAQ): the Debian GNU/Linux FAQ (`apt-get install debian-faq`),
 * English only, one document per question of the FAQ (a DocBook section: its own text,
 * without its subsections). Questions in `debian-faq.json`, labelled before any ranking
 * ran on this corpus (README.md beside this file); nothing is tuned on them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Question } from '../metrics.js';
import { docbookSections } from './docbook.js';
import { byKey, checkedQuestions, type BlindDocument } from './shared.js';

export const FAQ_DIR = '/usr/share/doc/debian/FAQ';

/** The chapters of the FAQ in its own order (`index.en.html` is only a table of contents). */
export const FAQ_CHAPTERS = [
  'basic-defs',
  'getting-debian',
  'choosing',
  'compatibility',
  'software',
  'ftparchives',
  'pkg-basics',
  'pkgtools',
  'uptodate',
  'kernel',
  'customizing',
  'support',
  'contributing',
  'redistributing',
  'nextrelease',
  'faqinfo',
] as const;

export const FAQ_INSTALL_HINT = `the Debian FAQ is not installed under ${FAQ_DIR}; install it with\n  apt-get install -y debian-faq`;

export function faqInstalled(dir: string = FAQ_DIR): boolean {
  return FAQ_CHAPTERS.every((c) => existsSync(join(dir, `${c}.en.html`)));
}

/**
 * One document per section of every chapter (its heading and own content), key
 * `<chapter>#<anchor>@en`; a chapter or section whose own text is under 150 characters
 * and that has subsections gets none. Uploaded as `<chapter>.<anchor>.html`.
 */
export function faqDocuments(dir: string = FAQ_DIR): BlindDocument[] {
  return byKey(FAQ_CHAPTERS.flatMap((chapter) => docbookSections(chapter, readFileSync(join(dir, `${chapter}.en.html`), 'utf8'))));
}

export function faqQuestions(docs: BlindDocument[]): Question[] {
  return checkedQuestions(new URL('./debian-faq.json', import.meta.url), docs);
}
