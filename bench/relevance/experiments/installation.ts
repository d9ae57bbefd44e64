/**
 * A third corpus, written blind as a check only: Debian's installation guide for amd64
 * (`apt-get install installation-guide-amd64`), one document per page, English and
 * Spanish, every third page in Spanish only. Thirty-six questions of
 * `installation-guide.json` (30 answerable, six not); nothing is tuned on them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Question } from '../metrics.js';
import type { UploadDocument } from './data.js';

export const INSTALLATION_DIR = '/usr/share/doc/installation-guide-amd64';

/**
 * Pages that are only a table of contents: the title page and the chapter and appendix
 * pages whose text, once their table of contents is removed, is the heading alone (under
 * 20 words). Landing pages with a paragraph of their own (ch01, ch02, ch03, apa, apb) stay.
 */
const NAVIGATION_ONLY = new Set(['index', 'apc', 'apd', 'ape', 'ch04', 'ch05', 'ch06', 'ch07', 'ch08']);

export function installationInstalled(): boolean {
  return existsSync(join(INSTALLATION_DIR, 'en')) && existsSync(join(INSTALLATION_DIR, 'es'));
}

export function installationDocuments(): UploadDocument[] {
  const pages = readdirSync(join(INSTALLATION_DIR, 'en'))
    .filter((f) => f.endsWith('.html') && !NAVIGATION_ONLY.has(f.replace(/\.html$/, '')))
    .sort();
  const docs: UploadDocument[] = [];
  pages.forEach((page, i) => {
    const section = page.replace(/\.html$/, '');
    const langs: ('en' | 'es')[] = i % 3 === 0 ? ['es'] : ['en', 'es'];
    for (const lang of langs) {
      const html = readFileSync(join(INSTALLATION_DIR, lang, page), 'utf8');
      docs.push({ key: `${section}@${lang}`, section, lang, html, filename: page });
    }
  });
  return docs;
}

export function installationQuestions(docs: UploadDocument[]): Question[] {
  const { questions } = JSON.parse(readFileSync(new URL('./installation-guide.json', import.meta.url), 'utf8')) as { questions: Question[] };
  const langsOf = new Map<string, Set<string>>();
  for (const d of docs) langsOf.set(d.section, (langsOf.get(d.section) ?? new Set()).add(d.lang));
  return questions.map((q) => {
    for (const s of q.relevant) if (!langsOf.has(s)) throw new Error(`${q.id}: ${s} is not a page of this guide`);
    const cross = q.relevant.length > 0 && q.relevant.every((s) => !langsOf.get(s)!.has(q.lang));
    return { ...q, cross };
  });
}
