import type { Language } from '../../text/language.js';
import { fold } from '../../text/words.js';

/*
 * Finding the documents that are translations of each other (decisions, D-786) without
 * a dictionary: what a translation keeps as it is (numbers, code and command names,
 * paths, URLs, proper names, untranslated terms), weighed by how rare it is, compared
 * as a cosine; a shared file name or URL once its language tag is taken out; lengths
 * that fit. Twins are mutual best matches above a threshold, so that a document pairs
 * with at most one other and an untranslated one pairs with none.
 */

export interface TwinCandidate {
  lang: Language;
  /** File name, URL: what may name both languages' documents alike. */
  names: readonly string[];
  /** Its folded content words, each once. */
  words: ReadonlySet<string>;
  /** Numbers, code, names: what a translation keeps. */
  anchors: ReadonlySet<string>;
  /** Content words: how long it is. */
  length: number;
}

/** A cosine at least this: the pair shares a good part of what translations keep. */
const MIN_SCORE = 0.25;
/** With the same name, a pair needs less: the name says most of it. */
const MIN_SCORE_NAMED = 0.08;
/** What the same name adds to the score. */
const NAME_BONUS = 0.5;
/** Lengths further apart than this factor are no translation of each other (unless named alike). */
const MAX_LENGTH_RATIO = 2.5;
/**
 * A token in more documents than this says little of which ones are twins (its idf is
 * small) and costs the square of its count: half of a small collection, about 5% of a
 * large one.
 */
const maxDocumentFrequency = (n: number) => Math.max(3, Math.min(n / 2, 20 + n / 20));

const LANGUAGE_TAGS = new Set(['en', 'es', 'eng', 'spa', 'english', 'spanish', 'espanol', 'ingles', 'enus', 'engb', 'eses', 'esmx', 'es419']);
const EXTENSIONS = /\.(?:html?|xhtml|php|aspx?|pdf|md|markdown|txt|csv|json|docx?|rst|adoc)$/i;

/**
 * The name of a document with its language tag, extension and scheme taken out
 * (`ch03._the_hostname.es.html`, `/es-ES/sect.quotas.html`, `https://x.org/en/guide`):
 * what the other language's document is likely named too; '' when nothing is left.
 */
export function nameKey(name: string): string {
  const folded = fold(name.trim())
    .replace(/^[a-z]+:\/\//, '')
    .replace(/[?#].*$/, '')
    .replace(EXTENSIONS, '');
  const parts = folded.split(/([/._-]+)/);
  const kept: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const part = parts[i]!;
    // `en-US` and `es_ES` split in two: a country after a language tag goes with it.
    if (LANGUAGE_TAGS.has(part) || (LANGUAGE_TAGS.has(parts[i - 2] ?? '') && /^(?:us|gb|es|mx|ar|419)$/.test(part))) continue;
    if (part) kept.push(part);
  }
  return kept.join('.');
}

function tokens(doc: TwinCandidate): Set<string> {
  const out = new Set(doc.anchors);
  for (const w of doc.words) if (w.length > 2) out.add(w);
  return out;
}

/** Pairs `[englishIndex, spanishIndex]` of twins among `docs` (indexes into it), in English index order. */
export function findTwins(docs: readonly TwinCandidate[]): [number, number][] {
  const sets = docs.map(tokens);
  const df = new Map<string, number>();
  const inLanguage: Record<Language, Set<string>> = { en: new Set(), es: new Set() };
  sets.forEach((set, i) => {
    for (const t of set) {
      df.set(t, (df.get(t) ?? 0) + 1);
      inLanguage[docs[i]!.lang].add(t);
    }
  });
  const n = docs.length;
  const maxDf = maxDocumentFrequency(n);
  // Only what both languages write can tell twins apart; each token weighs its idf squared
  // (worked out once: every document's norm and every English document's dots read it).
  const weights = new Map<string, number>();
  for (const [t, d] of df) {
    if (d > maxDf || !inLanguage.en.has(t) || !inLanguage.es.has(t)) continue;
    const idf = Math.log(n / d);
    weights.set(t, idf * idf);
  }
  const weight = (t: string) => weights.get(t) ?? 0;
  const norms = sets.map((set) => {
    let s = 0;
    for (const t of set) s += weight(t);
    return Math.sqrt(s);
  });
  const postings = new Map<string, number[]>();
  sets.forEach((set, i) => {
    if (docs[i]!.lang !== 'es') return;
    for (const t of set) if (weight(t) > 0) (postings.get(t) ?? postings.set(t, []).get(t)!).push(i);
  });
  const keys = docs.map((d) => d.names.map(nameKey).filter(Boolean));
  // A name shared by several documents of one language tells nothing (`index`, `readme`).
  const keyCount = new Map<string, number>();
  docs.forEach((d, i) => {
    for (const k of new Set(keys[i])) keyCount.set(`${d.lang}\n${k}`, (keyCount.get(`${d.lang}\n${k}`) ?? 0) + 1);
  });
  const uniqueKeys = keys.map((list, i) => list.filter((k) => keyCount.get(`${docs[i]!.lang}\n${k}`) === 1));
  const spanishByKey = new Map<string, number>();
  docs.forEach((d, i) => {
    if (d.lang === 'es') for (const k of uniqueKeys[i]!) spanishByKey.set(k, i);
  });

  const best = new Map<number, { other: number; score: number }>();
  const offer = (i: number, other: number, score: number) => {
    const b = best.get(i);
    if (!b || score > b.score || (score === b.score && other < b.other)) best.set(i, { other, score });
  };
  for (let i = 0; i < n; i++) {
    if (docs[i]!.lang !== 'en' || norms[i] === 0) continue;
    const dot = new Map<number, number>();
    for (const t of sets[i]!) {
      const w = weight(t);
      if (w > 0) for (const j of postings.get(t) ?? []) dot.set(j, (dot.get(j) ?? 0) + w);
    }
    for (const k of uniqueKeys[i]!) {
      const j = spanishByKey.get(k);
      if (j !== undefined && !dot.has(j)) dot.set(j, 0);
    }
    for (const [j, d] of dot) {
      const cosine = norms[j]! > 0 ? d / (norms[i]! * norms[j]!) : 0;
      const named = uniqueKeys[i]!.some((k) => spanishByKey.get(k) === j);
      const ratio = (Math.max(docs[i]!.length, docs[j]!.length) + 1) / (Math.min(docs[i]!.length, docs[j]!.length) + 1);
      if (named ? cosine < MIN_SCORE_NAMED : cosine < MIN_SCORE || ratio > MAX_LENGTH_RATIO) continue;
      const score = cosine + (named ? NAME_BONUS : 0);
      offer(i, j, score);
      offer(j, i, score);
    }
  }
  const out: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const b = best.get(i);
    if (docs[i]!.lang === 'en' && b && best.get(b.other)?.other === i) out.push([i, b.other]);
  }
  return out;
}
