/**
 * A check corpus (English only, many short sections): the Securing Debian Manual
 * (`apt-get install harden-doc`), one document per DocBook section of its English HTML
 * (its heading and own text, without its subsections). Questions in
 * `securing-debian.json`, labelled from the sections' text before any ranking ran on
 * this corpus (README.md beside this file).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Question } from '../metrics.js';
import type { Corpus } from './corpus.js';
import { docbookSections } from './docbook.js';
import { byKey, checkedQuestions, type BlindDocument } from './shared.js';

export const SECURING_DIR = '/usr/share/doc/harden-doc/html/en-US';

/**
 * Pages left out: `index` is the title page and table of contents, `changelog_history`
 * (appendix A) the manual's own revision history, not its subject.
 */
const LEFT_OUT = new Set(['index', 'changelog_history']);

export const SECURING_INSTALL_HINT = `the Securing Debian Manual is not installed under ${SECURING_DIR}; install it with\n  apt-get install -y harden-doc`;

export function securingInstalled(dir: string = SECURING_DIR): boolean {
  return existsSync(join(dir, 'index.html'));
}

/** The manual's pages (file names without `.html`), in name order. */
export function securingPages(dir: string = SECURING_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.html'))
    .map((f) => f.replace(/\.html$/, ''))
    .filter((p) => !LEFT_OUT.has(p))
    .sort();
}

/** One document per section of every page, key `<page>#<anchor>@en`, all English. */
export function securingDocuments(dir: string = SECURING_DIR): BlindDocument[] {
  return byKey(securingPages(dir).flatMap((p) => docbookSections(p, readFileSync(join(dir, `${p}.html`), 'utf8'))));
}

export function securingQuestions(docs: BlindDocument[]): Question[] {
  return checkedQuestions(new URL('./securing-debian.json', import.meta.url), docs);
}

export const securingDebian: Corpus = {
  name: 'securing-debian',
  role: 'check',
  packages: ['harden-doc'],
  installed: () => securingInstalled(),
  documents: () => securingDocuments(),
  questions: (docs) => securingQuestions(docs as BlindDocument[]),
};
