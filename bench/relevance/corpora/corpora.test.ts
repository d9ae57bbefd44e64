/**
 * The question files of this folder fit their corpora: the blind ones and the two
 * English-only check corpora (the Securing Debian Manual, the kernel handbook). Reads
 * documents only: nothing here ranks, and nothing imports the emulator or a ranking (the
 * blind corpora stay blind until the ranking helper runs them once per candidate).
 *
 *   npx vitest run --config bench/relevance/corpora/vitest.config.ts
 *
 * Without the Debian packages (CI installs none) the checks that need the documents skip
 * and say which packages to install; the ones on the question files alone still run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Question } from '../metrics.js';
import { ABS_INSTALL_HINT, absDocuments, absInstalled, absQuestions } from './abs-guide.js';
import { aptitude } from './aptitude.js';
import { FAQ_INSTALL_HINT, faqDocuments, faqInstalled, faqQuestions } from './debian-faq.js';
import { freedombox } from './freedombox.js';
import { KERNEL_INSTALL_HINT, kernelDocuments, kernelInstalled, kernelQuestions } from './kernel-handbook.js';
import {
  ENGLISH_ONLY,
  MAN_INSTALL_HINT,
  manPages,
  manpagesDocuments,
  manpagesInstalled,
  manpagesQuestions,
  missingManPages,
  SPANISH_ONLY,
  TWINS,
} from './manpages.js';
import { shapeDocuments, shapeInstalled, shapeQuestions } from './reference-shape.js';
import { SECURING_INSTALL_HINT, securingDocuments, securingInstalled, securingQuestions } from './securing-debian.js';
import { problemsOf, type BlindDocument, type QuestionFile } from './shared.js';

const read = (name: string): Question[] => (JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as QuestionFile).questions;

function counts(questions: Question[]) {
  const answerable = questions.filter((q) => q.kind !== 'no-answer');
  return {
    answerable: answerable.length,
    noAnswer: questions.length - answerable.length,
    spanishCross: answerable.filter((q) => q.lang === 'es' && q.cross).length,
    englishCross: answerable.filter((q) => q.lang === 'en' && q.cross).length,
    sameWords: answerable.filter((q) => q.kind === 'same-words').length,
    paraphrased: answerable.filter((q) => q.kind === 'paraphrased').length,
    spanish: answerable.filter((q) => q.lang === 'es').length,
  };
}

/** Languages each page is kept in, from the fixed lists alone (no package needed). */
const manLangs = manPages().flatMap(({ name, langs }) => langs.map((lang) => ({ section: name, lang })));

describe('question files (no package needed)', () => {
  it('the man pages set is well-formed, labels only listed pages, and its cross marks follow the lists', () => {
    const questions = read('./manpages.json');
    expect(problemsOf(questions, manLangs)).toEqual([]);
    const c = counts(questions);
    expect(c.answerable).toBeGreaterThanOrEqual(40);
    expect(c.noAnswer).toBeGreaterThanOrEqual(8);
    expect(c.spanishCross).toBeGreaterThanOrEqual(12);
    expect(c.englishCross).toBeGreaterThan(0);
    expect(Math.min(c.sameWords, c.paraphrased, c.spanish)).toBeGreaterThan(10);
  });

  it('the FAQ set is well-formed; the FAQ is English only, so every answerable Spanish question and no English one is cross', () => {
    const questions = read('./debian-faq.json');
    for (const q of questions) expect(q.cross, q.id).toBe(q.kind !== 'no-answer' && q.lang === 'es');
    const c = counts(questions);
    expect(c.answerable).toBeGreaterThanOrEqual(40);
    expect(c.noAnswer).toBeGreaterThanOrEqual(8);
    expect(Math.min(c.sameWords, c.paraphrased, c.spanish)).toBeGreaterThan(10);
  });

  it.each(['./securing-debian.json', './kernel-handbook.json', './abs-guide.json'])(
    'the English-only check set %s: every answerable Spanish question and no English one is cross; at least 40 answerable, 12 no-answer, 5 Spanish',
    (file) => {
      const questions = read(file);
      for (const q of questions) expect(q.cross, q.id).toBe(q.kind !== 'no-answer' && q.lang === 'es');
      const c = counts(questions);
      expect(c.answerable).toBeGreaterThanOrEqual(40);
      expect(c.noAnswer).toBeGreaterThanOrEqual(12);
      expect(c.spanish).toBeGreaterThanOrEqual(5);
      expect(Math.min(c.sameWords, c.paraphrased)).toBeGreaterThan(15);
    },
  );

  it("the held-out shape's set holds the issue's kinds: own words, paraphrased, Spanish questions answered only in English, no answer", () => {
    const questions = read('./reference-shape.json');
    const c = counts(questions);
    expect(c.answerable).toBeGreaterThanOrEqual(80);
    expect(c.noAnswer).toBeGreaterThanOrEqual(12);
    expect(c.spanishCross).toBeGreaterThanOrEqual(12);
    expect(c.englishCross).toBeGreaterThan(0);
    expect(Math.min(c.sameWords, c.paraphrased, c.spanish)).toBeGreaterThan(20);
  });

  it('no page is listed twice or in two lists', () => {
    const all = [...TWINS, ...ENGLISH_ONLY, ...SPANISH_ONLY];
    expect(new Set(all).size).toBe(all.length);
  });
});

function checkDocuments(docs: BlindDocument[]): void {
  expect(new Set(docs.map((d) => d.key)).size).toBe(docs.length);
  expect(new Set(docs.map((d) => `${d.filename}`)).size).toBe(docs.length);
  for (const d of docs) {
    expect(d.key, d.key).toBe(`${d.section}@${d.lang}`);
    expect(d.title.length, d.key).toBeGreaterThan(3);
    expect(d.html, d.key).toContain(`<title>`);
    expect(d.text.length, d.key).toBeGreaterThan(100);
    // Mis-decoded UTF-8 (a package shipping a page encoded twice) reads as "Ã³": none kept.
    expect(d.text, d.key).not.toMatch(/Ã[\u0080-\u00bf]/);
  }
}

describe.skipIf(!faqInstalled())('the Debian FAQ corpus (debian-faq installed)', () => {
  it('reads one document per FAQ section and every label is one of them', () => {
    const docs = faqDocuments();
    checkDocuments(docs);
    expect(docs.length).toBeGreaterThan(120);
    expect(docs.every((d) => d.lang === 'en')).toBe(true);
    expect(() => faqQuestions(docs)).not.toThrow();
  });
});

describe.skipIf(!shapeInstalled())("the held-out set's shape of the Debian Reference (debian-reference-en and -es installed)", () => {
  it('reads 281 English and 248 Spanish pages under names that say nothing, and every label and cross mark fits them', () => {
    const docs = shapeDocuments();
    checkDocuments(docs);
    expect([docs.filter((d) => d.lang === 'en').length, docs.filter((d) => d.lang === 'es').length]).toEqual([281, 248]);
    for (const d of docs) expect(d.filename, d.key).toMatch(/^doc-[0-9a-f]{8}\.html$/);
    expect(() => shapeQuestions(docs)).not.toThrow();
  });
});

describe.skipIf(!securingInstalled())('the Securing Debian Manual corpus (harden-doc installed)', () => {
  it('reads one English document per section and every label is one of them', () => {
    const docs = securingDocuments();
    checkDocuments(docs);
    expect(docs.length).toBeGreaterThan(200);
    expect(docs.every((d) => d.lang === 'en')).toBe(true);
    expect(() => securingQuestions(docs)).not.toThrow();
  });
});

describe.skipIf(!kernelInstalled())('the Debian Linux Kernel Handbook corpus (debian-kernel-handbook installed)', () => {
  it('reads one English document per section and every label is one of them', () => {
    const docs = kernelDocuments();
    checkDocuments(docs);
    expect(docs.length).toBeGreaterThan(40);
    expect(docs.every((d) => d.lang === 'en')).toBe(true);
    expect(() => kernelQuestions(docs)).not.toThrow();
  });
});

describe.skipIf(!absInstalled())('the Advanced Bash-Scripting Guide corpus (abs-guide installed)', () => {
  it('reads one English document per section, none but the contributed scripts past 60,000 characters, and every label is one of them', () => {
    const docs = absDocuments();
    checkDocuments(docs);
    expect(docs.length).toBeGreaterThan(120);
    expect(docs.every((d) => d.lang === 'en')).toBe(true);
    expect(docs.filter((d) => d.text.length > 60_000).map((d) => d.section)).toEqual(['contributed-scripts#CONTRIBUTED-SCRIPTS']);
    expect(() => absQuestions(docs)).not.toThrow();
  });
});

describe.skipIf(!manpagesInstalled())('the manual pages corpus (its pages and mandoc installed)', () => {
  const docs = manpagesInstalled() ? manpagesDocuments() : [];

  it('reads every listed page in the languages it is kept in, and every label is one of them', () => {
    checkDocuments(docs);
    expect(docs.length).toBe(2 * TWINS.length + ENGLISH_ONLY.length + SPANISH_ONLY.length);
    expect(() => manpagesQuestions(docs)).not.toThrow();
  });

  it('a Spanish question that is not cross-language is labelled with a Spanish page that is mostly translated', () => {
    const spanish = new Map(docs.filter((d) => d.lang === 'es').map((d) => [d.section, d]));
    for (const q of read('./manpages.json').filter((q) => q.lang === 'es' && q.kind !== 'no-answer' && !q.cross)) {
      const translated = q.relevant.filter((s) => spanish.has(s) && (spanish.get(s)!.englishShare ?? 0) < 0.5);
      expect(translated.length, q.id).toBeGreaterThan(0);
    }
  });
});

it.runIf(!faqInstalled() || !manpagesInstalled() || !securingInstalled() || !kernelInstalled() || !absInstalled())(
  'says what to install when a corpus is missing',
  () => {
    const missing = [
      !securingInstalled() && SECURING_INSTALL_HINT,
      !kernelInstalled() && KERNEL_INSTALL_HINT,
      !absInstalled() && ABS_INSTALL_HINT,
      !faqInstalled() && FAQ_INSTALL_HINT,
      !manpagesInstalled() && `${MAN_INSTALL_HINT}\n(missing: ${missingManPages().slice(0, 5).join(', ')}...)`,
    ].filter(Boolean);
    console.log(`skipped the corpus checks that need documents:\n${missing.join('\n')}`);
    expect(missing.length).toBeGreaterThan(0);
  },
);

describe.each([freedombox, aptitude])('the bilingual check corpus $name (its packages installed)', (corpus) => {
  it.skipIf(!corpus.installed())('reads one document per page and language, every third page Spanish only, and every label is one of them', () => {
    const docs = corpus.documents();
    expect(new Set(docs.map((d) => d.key)).size).toBe(docs.length);
    for (const d of docs) expect(d.html, d.key).toContain('<title>');
    const questions = corpus.questions(docs);
    const c = counts(questions);
    expect(c.answerable).toBeGreaterThanOrEqual(40);
    expect(c.noAnswer).toBeGreaterThanOrEqual(12);
    expect(c.englishCross).toBeGreaterThanOrEqual(6);
    expect(Math.min(c.sameWords, c.paraphrased, c.spanish)).toBeGreaterThan(10);
  });
});
