/**
 * The installation-guide corpus, read as the protocol reads it
 * (`../corpora/installation.ts`), under the names the experiments use.
 */
import type { Question } from '../metrics.js';
import { installationGuide, INSTALLATION_DIR } from '../corpora/installation.js';
import type { UploadDocument } from '../corpora/pages.js';

export { INSTALLATION_DIR };
export const installationInstalled = (): boolean => installationGuide.installed();
export const installationDocuments = (): UploadDocument[] => installationGuide.documents();
export const installationQuestions = (docs: UploadDocument[]): Question[] => installationGuide.questions(docs);
