import type { Corpus } from './corpus.js';
import { faqDocuments, faqInstalled, faqQuestions } from './debian-faq.js';
import { MAN_PACKAGES, manpagesDocuments, manpagesInstalled, manpagesQuestions } from './manpages.js';
import { shapeDocuments, shapeInstalled, shapeQuestions } from './reference-shape.js';

/**
 * The blind corpora (`README.md` beside this file): labelled before any ranking ran on
 * them, run once per final candidate, never tuned on. The third is the held-out set's
 * shape of the development documents with questions nobody tuned on.
 */
export const blindCorpora: Corpus[] = [
  {
    name: 'debian-faq',
    role: 'blind',
    packages: ['debian-faq'],
    installed: () => faqInstalled(),
    documents: () => faqDocuments(),
    questions: (docs) => faqQuestions(docs as Parameters<typeof faqQuestions>[0]),
  },
  {
    name: 'manpages',
    role: 'blind',
    packages: MAN_PACKAGES,
    installed: () => manpagesInstalled(),
    documents: () => manpagesDocuments(),
    questions: (docs) => manpagesQuestions(docs as Parameters<typeof manpagesQuestions>[0]),
  },
  {
    name: 'reference-shape',
    role: 'blind',
    packages: ['debian-reference-en', 'debian-reference-es'],
    installed: () => shapeInstalled(),
    documents: () => shapeDocuments(),
    questions: (docs) => shapeQuestions(docs as Parameters<typeof shapeQuestions>[0]),
  },
];
