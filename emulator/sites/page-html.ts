import { isLinkTarget } from '../../src/brand/brand.schema.js';
import type { Page } from '../../src/pages/pages.schema.js';
import type { Language } from '../../src/text/language.js';
import type { Project } from '../../src/projects/projects.schema.js';
import { escapeHtml } from './markdown.js';
import type { InlineStyle } from './theme-style.js';

type LangText = Record<Language, string>;

/** What of the brand a page shows; absent parts are simply not drawn. */
export interface BrandView {
  logoUrl?: string | undefined;
  faviconUrl?: string | undefined;
  navbar?: { links: { label: LangText; href: string }[]; cta?: { label: LangText | string; href: string } | undefined } | undefined;
  footer?: { text: LangText; links: { label: LangText; href: string }[] } | undefined;
}

export interface PageView {
  project: Project;
  page: Page;
  /** The site's home page, whose SEO texts fill the page's empty ones. */
  home: Page | undefined;
  brand: BrandView;
  lang: Language;
  /** A document page's body, rendered (`renderMarkdown`). */
  bodyHtml: string;
  /** The language the body is written in: `lang`, or the page's source language when it has no text in `lang`. */
  bodyLang?: Language | undefined;
}

/** Where the page's own files live (the CSP allows scripts and styles only from the site). */
export const STYLESHEET_PATH = '/_site/theme.css';
export const WIDGET_PATH = '/_site/widget.js';
/**
 * The icon of a site whose brand has no favicon: without a `<link rel="icon">` a browser
 * asks for `/favicon.ico`, which is no page (`404`, an error in its console).
 */
export const FAVICON_PATH = '/_site/favicon.svg';
export const DEFAULT_FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="4" fill="#64748b"/></svg>\n';

interface ChatTexts {
  placeholder: string;
  send: string;
  thinking: string;
  error: string;
  busy: string;
  resting: string;
}

// `busy`: the visitor asked too often (429); `resting`: visitors have used the credits
// they may spend (402). Both are the visitor's answer, not an error to fix.
const UI: Record<Language, ChatTexts> = {
  es: {
    placeholder: 'Escribe tu pregunta…',
    send: 'Enviar',
    thinking: 'Pensando…',
    error: 'No se pudo responder. Inténtalo de nuevo.',
    busy: 'Demasiadas preguntas en poco tiempo. Espera un momento y vuelve a preguntar.',
    resting: 'Este asistente no puede atender más preguntas ahora mismo. Vuelve más tarde, por favor.',
  },
  en: {
    placeholder: 'Type your question…',
    send: 'Send',
    thinking: 'Thinking…',
    error: 'Could not answer. Please try again.',
    busy: 'Too many questions in a short time. Please wait a moment and ask again.',
    resting: 'This assistant cannot take more questions right now. Please come back later.',
  },
};

const text = (value: LangText | string | undefined, lang: Language): string =>
  value === undefined ? '' : typeof value === 'string' ? value : (value[lang] ?? '');

/**
 * The site's stylesheet (`/_site/theme.css`): the layout, in the theme's CSS variables,
 * which each page carries inline (D-871). The same for every site.
 */
export const SITE_STYLESHEET = `*{box-sizing:border-box}
body{margin:0;background:var(--color-surface);color:var(--color-ink);font-family:var(--font-body);line-height:1.6}
h1,h2,h3,h4{font-family:var(--font-heading);line-height:1.2}
a{color:var(--color-primary)}
.site-header,.site-footer{display:flex;gap:1.5rem;align-items:center;justify-content:space-between;padding:1rem 2rem}
.site-header nav a,.site-footer nav a{margin-left:1rem;text-decoration:none}
.site-footer{color:var(--color-muted);border-top:1px solid var(--color-muted);margin-top:3rem;font-size:.9rem}
.brand img{height:2.5rem;display:block}
.cta,.chat button{background:var(--color-primary);color:var(--color-surface);border:0;border-radius:var(--radius);padding:.6rem 1.2rem;text-decoration:none;cursor:pointer}
main{max-width:48rem;margin:0 auto;padding:2rem;overflow-wrap:anywhere}
main pre,main table{display:block;max-width:100%;overflow-x:auto}main pre{overflow-wrap:normal}main img{max-width:100%;height:auto}
.badge:empty{display:none}
.badge{display:inline-block;background:var(--color-accent);color:var(--color-ink);border-radius:var(--radius);padding:.2rem .7rem;font-size:.85rem}
.accent{color:var(--color-primary)}
.lead{color:var(--color-muted);font-size:1.15rem}
table{border-collapse:collapse}td,th{border:1px solid var(--color-muted);padding:.3rem .8rem}
.chat{border:1px solid var(--color-muted);border-radius:var(--radius);padding:1rem;margin-top:2rem}
.chat-log{min-height:6rem;display:flex;flex-direction:column;gap:.6rem;margin-bottom:1rem}
.chat-log .user{align-self:flex-end;background:var(--color-primary);color:var(--color-surface);border-radius:var(--radius);padding:.4rem .8rem}
.chat-log .agent{align-self:flex-start;white-space:pre-wrap}
.chat-log .agent[data-failed]{color:var(--color-muted);font-style:italic}
.chat form{display:flex;gap:.5rem}.chat input{flex:1;padding:.6rem;border:1px solid var(--color-muted);border-radius:var(--radius);font:inherit}
.problem .home{display:inline-block;margin-top:1rem}.problem-code{color:var(--color-muted);font-size:.85rem}
`;

/** What the brand's header and footer need: the site, its brand and the language shown. */
export type Frame = Pick<PageView, 'project' | 'brand' | 'lang'>;

/**
 * A brand link as the page links it: a path on the site, shown in a language other than
 * the site's default, keeps that language (`?lang=`), so that the visitor who chose it
 * stays in it from page to page; other links as written.
 */
function siteHref(href: string, frame: Frame): string {
  if (frame.lang === frame.project.defaultLocale || !href.startsWith('/') || href.startsWith('//')) return href;
  const hash = href.indexOf('#');
  const path = hash < 0 ? href : href.slice(0, hash);
  const fragment = hash < 0 ? '' : href.slice(hash);
  const query = path.indexOf('?');
  if (query >= 0 && new URLSearchParams(path.slice(query + 1)).has('lang')) return href;
  return `${path}${query < 0 ? '?' : '&'}lang=${frame.lang}${fragment}`;
}

/**
 * A brand label in the language shown, else in the other one (a label may leave one
 * language empty, D-066): a link is never drawn without a name.
 */
function label(value: LangText | string, lang: Language): string {
  return text(value, lang) || (typeof value === 'string' ? '' : (value[lang === 'es' ? 'en' : 'es'] ?? ''));
}

// Links are checked when written; checked again here because an imported state
// document or an older store may hold one written before the rule.
function links(items: { label: LangText; href: string }[], frame: Frame): string {
  return items
    .filter((l) => isLinkTarget(l.href))
    .map((l) => `<a href="${escapeHtml(siteHref(l.href, frame))}">${escapeHtml(label(l.label, frame.lang))}</a>`)
    .join('');
}

/** The brand's header: logo (or the site's name) linking home, navbar links and CTA. */
export function header(view: Frame): string {
  const { brand, project, lang } = view;
  const logo = brand.logoUrl ? `<img src="${escapeHtml(brand.logoUrl)}" alt="${escapeHtml(project.name)}">` : `<strong>${escapeHtml(project.name)}</strong>`;
  const nav = brand.navbar ? `<nav>${links(brand.navbar.links, view)}</nav>` : '';
  const cta =
    brand.navbar?.cta && isLinkTarget(brand.navbar.cta.href)
      ? `<a class="cta" href="${escapeHtml(siteHref(brand.navbar.cta.href, view))}">${escapeHtml(label(brand.navbar.cta.label, lang))}</a>`
      : '';
  return `<header class="site-header"><a class="brand" href="${escapeHtml(siteHref('/', view))}">${logo}</a>${nav}${cta}</header>`;
}

/** The brand's footer: its text (or the site's name) and links. */
export function footer(view: Frame): string {
  const { brand, project, lang } = view;
  const note = text(brand.footer?.text, lang) || project.name;
  const nav = brand.footer?.links.length ? `<nav>${links(brand.footer.links, view)}</nav>` : '';
  return `<footer class="site-footer"><span>${escapeHtml(note)}</span>${nav}</footer>`;
}

function agentMain(view: PageView): string {
  const { page, lang } = view;
  const e = page.editorial;
  const ui = UI[lang];
  // Editorial texts not written in this language show the source language's, marked as
  // such, as a document's body does (D-1103): never an empty heading.
  const written = [e.badge, e.title, e.titleAccent, e.description].some((value) => text(value, lang));
  const textLang = written ? lang : page.defaultLocale;
  const marked = textLang === lang ? '' : ` lang="${textLang}"`;
  return `<main data-kind="agent">
<span class="badge"${marked}>${escapeHtml(text(e.badge, textLang))}</span>
<h1${marked}>${escapeHtml(text(e.title, textLang))} <span class="accent">${escapeHtml(text(e.titleAccent, textLang))}</span></h1>
<p class="lead"${marked}>${escapeHtml(text(e.description, textLang))}</p>
<section class="chat" data-path="${escapeHtml(page.path)}" data-lang="${lang}" data-thinking="${escapeHtml(ui.thinking)}" data-error="${escapeHtml(ui.error)}" data-busy="${escapeHtml(ui.busy)}" data-resting="${escapeHtml(ui.resting)}">
<div class="chat-log" aria-live="polite"></div>
<form><input name="message" autocomplete="off" placeholder="${escapeHtml(ui.placeholder)}" aria-label="${escapeHtml(ui.placeholder)}"><button type="submit">${escapeHtml(ui.send)}</button></form>
</section>
</main>`;
}

/**
 * A complete HTML document for a published page in one of the site's languages, its
 * theme's variables inline in `style` (the CSP allows them by `style.source`).
 */
export function renderPage(view: PageView, origin: string, style: InlineStyle): string {
  const { project, page, home, lang } = view;
  const seoTitle = text(page.seo.title, lang) || text(home?.seo.title, lang) || project.name;
  const seoDescription = text(page.seo.description, lang) || text(home?.seo.description, lang);
  const alternates = project.locales
    .map((l) => `<link rel="alternate" hreflang="${l}" href="${escapeHtml(`${origin}${page.path}${l === page.defaultLocale ? '' : `?lang=${l}`}`)}">`)
    .join('');
  // A body shown in another language than the page says it: screen readers and search engines read it as what it is.
  const bodyLang = view.bodyLang && view.bodyLang !== lang ? ` lang="${view.bodyLang}"` : '';
  const body = page.kind === 'agent' ? agentMain(view) : `<main data-kind="document"${bodyLang}>${view.bodyHtml}</main>`;
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(seoTitle)}</title>
${seoDescription ? `<meta name="description" content="${escapeHtml(seoDescription)}">` : ''}
<link rel="icon" href="${escapeHtml(view.brand.faviconUrl ?? FAVICON_PATH)}">
${alternates}
<style>${style.css}</style>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${page.kind === 'agent' ? `<script src="${WIDGET_PATH}" defer></script>` : ''}
</head>
<body>
${header(view)}
${body}
${footer(view)}
</body>
</html>
`;
}
