/**
 * What the blind check corpora of this folder share: the document shape the runner
 * uploads, the standalone page around a document's HTML, and the question file reader
 * that refuses labels the corpus contradicts. Nothing here ranks.
 */
import { readFileSync } from 'node:fs';
import type { Question } from '../metrics.js';
import type { UploadDocument } from '../experiments/data.js';

/** A document to upload, with what the checks read: its title and visible text. */
export interface BlindDocument extends UploadDocument {
  /** The title the page carries in its `<title>`. */
  title: string;
  /** Its visible text (squashed white space), for the checks and for grepping no-answers. */
  text: string;
  /**
   * Spanish documents with an English twin only: the share of the Spanish page's prose
   * blocks (by characters) identical to the English page's, i.e. left untranslated.
   */
  englishShare?: number;
}

export interface QuestionFile {
  about: string;
  questions: Question[];
}

export const squash = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A standalone HTML page: `<title>` the document's title, the body its content. */
export function page(title: string, lang: string, body: string): string {
  return `<!DOCTYPE html>\n<html lang="${lang}">\n<head><meta charset="utf-8"/><title>${escapeHtml(title)}</title></head>\n<body><main>\n${body}\n</main></body>\n</html>\n`;
}

/** Sorted by key: the same list every run. */
export const byKey = <T extends { key: string }>(docs: T[]): T[] => docs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

/**
 * Where a question set disagrees with its corpus: a malformed question, a label that is
 * no section of the corpus, a no-answer question with labels (or an answerable one
 * without), a duplicate id, or a `cross` mark that is not "every labelled section lacks
 * a document in the question's language". Empty when the set fits.
 */
export function problemsOf(questions: Question[], docs: { section: string; lang: 'en' | 'es' }[]): string[] {
  const langsOf = new Map<string, Set<string>>();
  for (const d of docs) langsOf.set(d.section, (langsOf.get(d.section) ?? new Set()).add(d.lang));
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const q of questions) {
    const where = q.id ?? JSON.stringify(q).slice(0, 60);
    if (typeof q.id !== 'string' || !/^[a-z]\d+$/.test(q.id)) problems.push(`${where}: id must be a letter and a number`);
    if (ids.has(q.id)) problems.push(`${where}: duplicate id`);
    ids.add(q.id);
    if (q.lang !== 'en' && q.lang !== 'es') problems.push(`${where}: lang must be en or es`);
    if (!['same-words', 'paraphrased', 'no-answer'].includes(q.kind)) problems.push(`${where}: unknown kind ${q.kind}`);
    if (typeof q.text !== 'string' || q.text.trim().length < 10) problems.push(`${where}: no question text`);
    if (!Array.isArray(q.relevant)) {
      problems.push(`${where}: relevant must be a list`);
      continue;
    }
    if (typeof q.cross !== 'boolean') problems.push(`${where}: cross must be true or false`);
    if ((q.kind === 'no-answer') !== (q.relevant.length === 0)) problems.push(`${where}: a no-answer question has no relevant section, and only it`);
    if (new Set(q.relevant).size !== q.relevant.length) problems.push(`${where}: a label is listed twice`);
    const unknown = q.relevant.filter((s) => !langsOf.has(s));
    for (const s of unknown) problems.push(`${where}: ${s} is not a section of this corpus`);
    if (unknown.length) continue;
    const cross = q.relevant.length > 0 && q.relevant.every((s) => !langsOf.get(s)!.has(q.lang));
    if (q.cross !== cross) problems.push(`${where}: marked cross ${q.cross}, but the corpus says ${cross}`);
  }
  return problems;
}

/** The questions of `file`, refused (thrown) when they do not fit `docs`. */
export function checkedQuestions(file: URL, docs: { section: string; lang: 'en' | 'es' }[]): Question[] {
  const { questions } = JSON.parse(readFileSync(file, 'utf8')) as QuestionFile;
  const problems = problemsOf(questions, docs);
  if (problems.length) throw new Error(`${file.pathname} does not fit its corpus (another package version?):\n  ${problems.join('\n  ')}`);
  return questions;
}
