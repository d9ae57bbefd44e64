import type { Language } from '../text/language.js';

type Texts = Record<Language, string>;

/** What llms.txt says of one published page. */
export interface LlmsEntry {
  path: string;
  /** The console label: the title of last resort. */
  name: string;
  title: Texts;
  description: Texts;
  /** The page's source language: its address without `?lang=` serves it, when the site does. */
  defaultLocale: Language;
}

export interface LlmsSite {
  name: string;
  locales: Language[];
  defaultLocale: Language;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function linkText(text: string): string {
  return oneLine(text).replace(/([\\[\]])/g, '\\$1');
}

function pick(texts: Texts, lang: Language, fallback: Language): string {
  return oneLine(texts[lang]) || oneLine(texts[fallback]);
}

/**
 * Renders a site's llms.txt (llmstxt.org shape, decisions D-043) from its published pages: the site name,
 * the home page description as the summary, and one link list per served language,
 * the default language first. Links are site-relative so that they hold on any host.
 */
export function renderLlmsTxt(site: LlmsSite, entries: readonly LlmsEntry[]): string {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const lines = [`# ${oneLine(site.name)}`, ''];
  const home = sorted.find((e) => e.path === '/');
  const summary = home ? pick(home.description, site.defaultLocale, site.defaultLocale) : '';
  if (summary) lines.push(`> ${summary}`, '');
  const languages = [site.defaultLocale, ...site.locales.filter((l) => l !== site.defaultLocale)];
  for (const lang of languages) {
    const isDefault = lang === site.defaultLocale;
    lines.push(isDefault ? '## Pages' : `## Pages (${lang})`, '');
    if (sorted.length === 0) lines.push('No published pages yet.');
    for (const entry of sorted) {
      const title = linkText(pick(entry.title, lang, site.defaultLocale) || entry.name);
      // The bare address serves the page's own language when the site serves it, else the site's (D-1104).
      const served = site.locales.includes(entry.defaultLocale) ? entry.defaultLocale : site.defaultLocale;
      const href = lang === served ? entry.path : `${entry.path}?lang=${lang}`;
      const description = pick(entry.description, lang, site.defaultLocale);
      lines.push(`- [${title}](${href})${description ? `: ${description}` : ''}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
