import type { Corpus } from './corpus.js';
import { faqDocuments, faqInstalled, faqQuestions } from './debian-faq.js';
import { MAN_PACKAGES, manpagesDocuments, manpagesInstalled, manpagesQuestions } from './manpages.js';

/**
 * The two blind corpora (`README.md` beside this file): labelled before any ranking ran
 * on them, run once per final candidate, never tuned on.
 */
export const blindCorpora: Corpus[] = [
  { name: 'debian-faq', role: 'blind', packages: ['debian-faq'], installed: () => faqInstalled(), documents: () => faqDocuments(), questions: (docs) => faqQuestions(docs as Parameters<typeof faqQuestions>[0]) },
  { name: 'manpages', role: 'blind', packages: MAN_PACKAGES, installed: () => manpagesInstalled(), documents: () => manpagesDocuments(), questions: (docs) => manpagesQuestions(docs as Parameters<typeof manpagesQuestions>[0]) },
];
