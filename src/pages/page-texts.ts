import type { Language } from '../text/language.js';

/** One text in both languages a site can serve; `''` means not written. */
export type LangText = Record<Language, string>;

export interface Editorial {
  badge: LangText;
  title: LangText;
  titleAccent: LangText;
  description: LangText;
}

export interface Seo {
  title: LangText;
  description: LangText;
}

/** Everything of a page that is written in a language (and so can be translated). */
export interface PageTexts {
  editorial: Editorial;
  seo: Seo;
  body: LangText;
}

/** A partial text: an absent language is left as it is. */
export type LangTextPatch = Partial<LangText>;

export interface PageTextsPatch {
  editorial?: Partial<Record<keyof Editorial, LangTextPatch>> | undefined;
  seo?: Partial<Record<keyof Seo, LangTextPatch>> | undefined;
  body?: LangTextPatch | undefined;
}

export const TEXT_FIELDS = [
  'editorial.badge',
  'editorial.title',
  'editorial.titleAccent',
  'editorial.description',
  'seo.title',
  'seo.description',
  'body',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

const empty = (): LangText => ({ es: '', en: '' });

/** The texts of a page nobody has written yet. */
export function emptyTexts(): PageTexts {
  return {
    editorial: { badge: empty(), title: empty(), titleAccent: empty(), description: empty() },
    seo: { title: empty(), description: empty() },
    body: empty(),
  };
}

/** The `{ es, en }` object of one field (a live reference into `texts`). */
export function textOf(texts: PageTexts, field: TextField): LangText {
  const [group, key] = field.split('.') as [keyof PageTexts, string | undefined];
  if (key === undefined) return texts[group] as LangText;
  return (texts[group] as unknown as Record<string, LangText>)[key]!;
}

function patchOf(patch: PageTextsPatch, field: TextField): LangTextPatch | undefined {
  const [group, key] = field.split('.') as [keyof PageTextsPatch, string | undefined];
  const value = patch[group];
  if (key === undefined) return value as LangTextPatch | undefined;
  return (value as Record<string, LangTextPatch | undefined> | undefined)?.[key];
}

/**
 * Applies a partial patch of texts: an absent language is kept, any sent value (the
 * empty string removes it) replaces it. Answers the new texts and the `field.lang`
 * entries the owner wrote, which are no longer the translator's.
 */
export function mergeTexts(current: PageTexts, patch: PageTextsPatch): { texts: PageTexts; written: string[] } {
  const texts = structuredClone(current);
  const written: string[] = [];
  for (const field of TEXT_FIELDS) {
    const change = patchOf(patch, field);
    if (!change) continue;
    const target = textOf(texts, field);
    for (const lang of ['es', 'en'] as const) {
      const value = change[lang];
      if (value === undefined) continue;
      target[lang] = value;
      written.push(`${field}.${lang}`);
    }
  }
  return { texts, written };
}
