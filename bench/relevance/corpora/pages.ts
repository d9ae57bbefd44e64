import { readFileSync } from 'node:fs';
import type { Question } from '../metrics.js';

/** A document to upload: its section key, language, HTML and the file name it is uploaded under. */
export interface UploadDocument {
  key: string;
  section: string;
  lang: 'en' | 'es';
  html: string;
  filename: string;
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

/** The questions of a question file, each labelled `cross` when every page answering it is kept only in the other language. */
export function labelledQuestions(file: URL, docs: UploadDocument[]): Question[] {
  const { questions } = JSON.parse(readFileSync(file, 'utf8')) as { questions: Question[] };
  const langsOf = new Map<string, Set<string>>();
  for (const d of docs) langsOf.set(d.section, (langsOf.get(d.section) ?? new Set()).add(d.lang));
  const ids = new Set<string>();
  return questions.map((q) => {
    if (ids.has(q.id)) throw new Error(`${file.pathname}: question id ${q.id} twice`);
    ids.add(q.id);
    if ((q.kind === 'no-answer') !== (q.relevant.length === 0)) throw new Error(`${q.id}: a no-answer question has no relevant page, and only it`);
    for (const s of q.relevant) if (!langsOf.has(s)) throw new Error(`${q.id}: ${s} is not a page of ${file.pathname}`);
    const cross = q.relevant.length > 0 && q.relevant.every((s) => !langsOf.get(s)!.has(q.lang));
    return { ...q, cross };
  });
}
