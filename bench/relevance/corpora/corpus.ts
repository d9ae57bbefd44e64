import type { Question } from '../metrics.js';
import type { UploadDocument } from './pages.js';

export type { UploadDocument };

/**
 * One corpus of the relevance protocol: real documentation from Debian packages and
 * its labelled questions. `role`: `dev` (looked at while developing), `check` (run
 * while developing, never tuned on), `blind` (labelled before any approach ran on it,
 * run once per final candidate).
 */
export interface Corpus {
  name: string;
  role: 'dev' | 'check' | 'blind';
  /** The Debian packages it is read from (`apt-get install -y ...`). */
  packages: string[];
  installed(): boolean;
  /** Every document, in a fixed order: the same list on every run. */
  documents(): UploadDocument[];
  /** Its questions, checked against the documents (labels that name no document throw). */
  questions(docs: UploadDocument[]): Question[];
}
