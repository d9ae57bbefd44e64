import type { Language } from '../text/language.js';

/** The job that fills a newly served language of a site (handled by the pages part). */
export const TRANSLATE_JOB = 'sites.translate';

/** Payload of a translation job; `pageId` narrows it to one page. */
export interface TranslateJobPayload {
  projectId: string;
  locale: Language;
  pageId?: string;
}
