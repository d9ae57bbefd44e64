/**
 * A second real corpus, for the "does it carry over" check only: The Debian
 * Administrator's Handbook (`apt-get install debian-handbook`), one document per page,
 * English and Spanish, every third page in Spanish only. Twenty-eight questions of
 * `debian-handbook.json` (24 answerable, four not); nothing is tuned on them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Question } from '../metrics.js';
import type { UploadDocument } from './data.js';

export const HANDBOOK_DIR = '/usr/share/doc/debian-handbook/html';

export function handbookInstalled(): boolean {
  return existsSync(join(HANDBOOK_DIR, 'en-US')) && existsSync(join(HANDBOOK_DIR, 'es-ES'));
}

export function handbookDocuments(): UploadDocument[] {
  const pages = readdirSync(join(HANDBOOK_DIR, 'en-US')).filter((f) => f.startsWith('sect.') && f.endsWith('.html')).sort();
  return everyThirdSpanishOnly(pages, (page, lang) => join(HANDBOOK_DIR, lang === 'en' ? 'en-US' : 'es-ES', page));
}

export function handbookQuestions(docs: UploadDocument[]): Question[] {
  return labelledQuestions(new URL('./debian-handbook.json', import.meta.url), docs);
}

/**
 * One document per page (`section`: the page name without `.html`), English and
 * Spanish, every third page in name order kept in Spanish only, read from `path`.
 */
export function everyThirdSpanishOnly(pages: string[], path: (page: string, lang: 'en' | 'es') => string): UploadDocument[] {
  const docs: UploadDocument[] = [];
  pages.forEach((page, i) => {
    const section = page.replace(/\.html$/, '');
    const langs: ('en' | 'es')[] = i % 3 === 0 ? ['es'] : ['en', 'es'];
    for (const lang of langs) docs.push({ key: `${section}@${lang}`, section, lang, html: readFileSync(path(page, lang), 'utf8'), filename: page });
  });
  return docs;
}

/** The questions of a check set, each labelled `cross` when every page answering it is kept only in the other language. */
export function labelledQuestions(file: URL, docs: UploadDocument[]): Question[] {
  const { questions } = JSON.parse(readFileSync(file, 'utf8')) as { questions: Question[] };
  const langsOf = new Map<string, Set<string>>();
  for (const d of docs) langsOf.set(d.section, (langsOf.get(d.section) ?? new Set()).add(d.lang));
  return questions.map((q) => {
    for (const s of q.relevant) if (!langsOf.has(s)) throw new Error(`${q.id}: ${s} is not a page of ${file.pathname}`);
    const cross = q.relevant.length > 0 && q.relevant.every((s) => !langsOf.get(s)!.has(q.lang));
    return { ...q, cross };
  });
}
