/**
 * A check corpus (English only, a programming guide: prose around many code listings):
 * the Advanced Bash-Scripting Guide (`apt-get install abs-guide`), one document per
 * DocBook section of its HTML (its heading and own text, without its subsections).
 * Questions in `abs-guide.json`, labelled from the sections' text before any ranking ran
 * on this corpus (README.md beside this file).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Question } from '../metrics.js';
import type { Corpus } from './corpus.js';
import { dssslSections } from './docbook.js';
import { byKey, checkedQuestions, type BlindDocument } from './shared.js';

export const ABS_DIR = '/usr/share/doc/abs-guide/html';

/**
 * Pages left out: `index` (title page and table of contents), `xrefindex` (the index:
 * pointers to other pages), `revisionhistory` (the guide's own revision history),
 * `biblio` (a list of books, not cut into sections), and the five part pages (a title,
 * an epigraph and a table of contents; part 1 adds one paragraph, part 4 a list of the
 * commands with links).
 */
const LEFT_OUT = new Set(['index', 'xrefindex', 'revisionhistory', 'biblio', 'part1', 'part2', 'part3', 'part4', 'part5']);

export const ABS_INSTALL_HINT = `the Advanced Bash-Scripting Guide is not installed under ${ABS_DIR}; install it with\n  apt-get install -y abs-guide`;

export function absInstalled(dir: string = ABS_DIR): boolean {
  return existsSync(join(dir, 'index.html'));
}

/** The guide's pages (file names without `.html`), in name order. */
export function absPages(dir: string = ABS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.html'))
    .map((f) => f.replace(/\.html$/, ''))
    .filter((p) => !LEFT_OUT.has(p))
    .sort();
}

/**
 * One document per section of every page, key `<page>#<ANCHOR>@en` (the stylesheet's
 * upper-case anchors), all English. The pages are ISO-8859-1, as their `<meta>` says.
 */
export function absDocuments(dir: string = ABS_DIR): BlindDocument[] {
  return byKey(absPages(dir).flatMap((p) => dssslSections(p, readFileSync(join(dir, `${p}.html`), 'latin1'))));
}

export function absQuestions(docs: BlindDocument[]): Question[] {
  return checkedQuestions(new URL('./abs-guide.json', import.meta.url), docs);
}

export const absGuide: Corpus = {
  name: 'abs-guide',
  role: 'check',
  packages: ['abs-guide'],
  installed: () => absInstalled(),
  documents: () => absDocuments(),
  questions: (docs) => absQuestions(docs as BlindDocument[]),
};
