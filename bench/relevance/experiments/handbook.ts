/**
 * The handbook corpus, read as the protocol reads it (`../corpora/handbook.ts`), under
 * the names the experiments use.
 */
import type { Question } from '../metrics.js';
import { handbook, HANDBOOK_DIR } from '../corpora/handbook.js';
import type { UploadDocument } from '../corpora/pages.js';

export { everyThirdSpanishOnly, labelledQuestions } from '../corpora/pages.js';
export { HANDBOOK_DIR };
export const handbookInstalled = (): boolean => handbook.installed();
export const handbookDocuments = (): UploadDocument[] => handbook.documents();
export const handbookQuestions = (docs: UploadDocument[]): Question[] => handbook.questions(docs);
