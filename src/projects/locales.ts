import * as v from 'valibot';

/** The languages a site can serve. */
export const LOCALES = ['es', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

export const LocaleSchema = v.picklist(LOCALES, 'must be es or en');

/** The other language of the two a site can serve. */
export function otherLocale(locale: Locale): Locale {
  return locale === 'es' ? 'en' : 'es';
}
