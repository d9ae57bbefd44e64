import { readFileSync } from 'node:fs';
import type { Question } from '../metrics.js';
import type { Corpus } from './corpus.js';
import { corpusInstalled, loadCorpus, type CorpusDocument } from './reference-reader.js';
import type { UploadDocument } from './pages.js';

/**
 * The development set of issue 14: the Debian Reference in English and Spanish, one
 * document per DocBook section (`reference-reader.ts`), uploaded under its section key
 * as file name. Questions: `debian-reference.json` (README.md).
 */
export const reference: Corpus = {
  name: 'debian-reference',
  role: 'dev',
  packages: ['debian-reference-en', 'debian-reference-es'],
  installed: corpusInstalled,
  documents: () => referenceDocuments(loadCorpus()),
  questions: (docs) => referenceQuestions(docs as ReferenceUpload[]),
};

type ReferenceUpload = UploadDocument & { doc: CorpusDocument };

function referenceDocuments(docs: CorpusDocument[]): ReferenceUpload[] {
  return docs.map((d) => ({ key: d.key, section: d.section, lang: d.lang, html: d.html, filename: `${d.key.replace(/[#@ ]/g, '.')}.html`, doc: d }));
}

/** The questions, refused when their labels or cross-language marks contradict the corpus (another version of the package). */
function referenceQuestions(uploads: ReferenceUpload[]): Question[] {
  const { questions } = JSON.parse(readFileSync(new URL('./debian-reference.json', import.meta.url), 'utf8')) as { questions: Question[] };
  const sections = new Map<string, CorpusDocument[]>();
  for (const { doc: d } of uploads) sections.set(d.section, [...(sections.get(d.section) ?? []), d]);
  const problems: string[] = [];
  for (const q of questions) {
    if ((q.kind === 'no-answer') !== (q.relevant.length === 0)) problems.push(`${q.id}: a no-answer question has no relevant section, and only it`);
    for (const s of q.relevant) if (!sections.has(s)) problems.push(`${q.id}: ${s} is not a section of this corpus`);
    // A cross-language question must have no document of its own language holding the
    // answer: an English one only Spanish text (no English original, a translated Spanish
    // file); a Spanish one only English text (Spanish files still wholly or partly English).
    if (q.cross) {
      for (const s of q.relevant) {
        const own = (sections.get(s) ?? []).filter((d) =>
          q.lang === 'en' ? d.lang === 'en' || d.translation === 'none' : d.lang === 'es' && d.translation === 'full',
        );
        if (own.length) problems.push(`${q.id}: marked cross-language, but ${own[0]!.key} has text in the question's language`);
      }
    }
  }
  if (problems.length) throw new Error(`the question set does not fit this corpus (another version of debian-reference?):\n  ${problems.join('\n  ')}`);
  return questions;
}
