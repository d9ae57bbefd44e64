/** The two languages the service speaks, writes sites in and detects: Spanish and English. */
export const LANGUAGES = ['es', 'en'] as const;

/** `es` or `en`: a site's locale, a source's or a chunk's language, a message's (decisions, D-152). */
export type Language = (typeof LANGUAGES)[number];

/** The other of the two languages. */
export function otherLanguage(language: Language): Language {
  return language === 'es' ? 'en' : 'es';
}
