/**
 * A check corpus (English only, short sections): the Debian Linux Kernel Handbook
 * (`apt-get install debian-kernel-handbook`), one document per DocBook section of its
 * chapters (its heading and own text, without its subsections). Questions in
 * `kernel-handbook.json`, labelled from the sections' text before any ranking ran on
 * this corpus (README.md beside this file).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Question } from '../metrics.js';
import type { Corpus } from './corpus.js';
import { docbookSections } from './docbook.js';
import { byKey, checkedQuestions, type BlindDocument } from './shared.js';

export const KERNEL_DIR = '/usr/share/doc/debian-kernel-handbook/kernel-handbook.html';

export const KERNEL_INSTALL_HINT = `the Debian Linux Kernel Handbook is not installed under ${KERNEL_DIR}; install it with\n  apt-get install -y debian-kernel-handbook`;

export function kernelInstalled(dir: string = KERNEL_DIR): boolean {
  return existsSync(join(dir, 'index.html'));
}

/** The chapter pages (`ch-*.html`, without `.html`; `index.html` is the title page and table of contents). */
export function kernelPages(dir: string = KERNEL_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith('ch-') && f.endsWith('.html'))
    .map((f) => f.replace(/\.html$/, ''))
    .sort();
}

/** One document per section of every chapter, key `<page>#<anchor>@en`, all English. */
export function kernelDocuments(dir: string = KERNEL_DIR): BlindDocument[] {
  return byKey(kernelPages(dir).flatMap((p) => docbookSections(p, readFileSync(join(dir, `${p}.html`), 'utf8'))));
}

export function kernelQuestions(docs: BlindDocument[]): Question[] {
  return checkedQuestions(new URL('./kernel-handbook.json', import.meta.url), docs);
}

export const kernelHandbook: Corpus = {
  name: 'kernel-handbook',
  role: 'check',
  packages: ['debian-kernel-handbook'],
  installed: () => kernelInstalled(),
  documents: () => kernelDocuments(),
  questions: (docs) => kernelQuestions(docs as BlindDocument[]),
};
