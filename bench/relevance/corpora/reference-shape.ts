import { createHash } from 'node:crypto';
import type { Question } from '../metrics.js';
import { corpusInstalled, heldOutShape, loadCorpus } from './reference-reader.js';
import { checkedQuestions, type BlindDocument } from './shared.js';

/**
 * The held-out set's shape (`heldOutShape`: the Debian Reference's 281 largest English and
 * 248 largest Spanish sections), each page under a neutral file name, so that no file
 * name tells a ranking what the page is about.
 */
export function shapeDocuments(): BlindDocument[] {
  return heldOutShape(loadCorpus()).map((d) => ({
    key: d.key,
    section: d.section,
    lang: d.lang,
    html: d.html,
    filename: `doc-${createHash('sha256').update(d.key).digest('hex').slice(0, 8)}.html`,
    title: d.title,
    text: d.text,
  }));
}

export const shapeInstalled = corpusInstalled;

/**
 * `reference-shape.json`: questions written on these 529 pages by two helpers who ran no
 * ranking on them (README.md), thrown out when a label or a `cross` mark does not fit.
 */
export function shapeQuestions(docs: { section: string; lang: 'en' | 'es' }[]): Question[] {
  return checkedQuestions(new URL('./reference-shape.json', import.meta.url), docs);
}
