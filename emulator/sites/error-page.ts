import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import type { AppEnv } from '../../src/platform/context.js';
import type { Language } from '../../src/text/language.js';
import { escapeHtml } from './markdown.js';
import { FAVICON_PATH, footer, header, STYLESHEET_PATH, type Frame } from './page-html.js';
import type { InlineStyle } from './theme-style.js';
import { styleSource } from './theme-style.js';

/**
 * Whether the caller would rather see a page than read the problem document: `text/html`
 * ranks first in its `Accept` header, as a browser's navigation says. JSON, problem+json,
 * a bare wildcard (curl, fetch) or no `Accept` at all keep the problem document (D-873).
 * hono's parser reads the header (qualities, parameters, wildcards).
 */
export function wantsHtml(c: Context<AppEnv>): boolean {
  return accepts(c, { header: 'Accept', supports: ['text/html', 'application/problem+json', 'application/json'], default: 'application/json' }) === 'text/html';
}

interface Texts {
  title: string;
  message: string;
}

// What a visitor reads, by kind of failure; the code and request id follow in small print.
const TEXTS: Record<Language, Record<'notFound' | 'noSite' | 'unavailable' | 'failed' | 'refused', Texts> & { home: string; sites: string }> = {
  es: {
    notFound: { title: 'Página no encontrada', message: 'La página que buscas no existe o ya no está publicada.' },
    noSite: { title: 'Aquí no hay ningún sitio', message: 'Ningún sitio publicado responde en esta dirección.' },
    unavailable: { title: 'Servicio no disponible', message: 'El sitio no puede responder ahora mismo. Inténtalo de nuevo en un momento.' },
    failed: { title: 'Algo ha fallado', message: 'No hemos podido mostrar esta página. Inténtalo de nuevo en un momento.' },
    refused: { title: 'No se pudo atender la solicitud', message: 'El sitio no ha podido atender esta solicitud.' },
    home: 'Volver al inicio',
    sites: 'Ver los sitios publicados',
  },
  en: {
    notFound: { title: 'Page not found', message: 'The page you are looking for does not exist or is no longer published.' },
    noSite: { title: 'No site here', message: 'No published site answers at this address.' },
    unavailable: { title: 'Temporarily unavailable', message: 'The site cannot answer right now. Please try again in a moment.' },
    failed: { title: 'Something went wrong', message: 'We could not show this page. Please try again in a moment.' },
    refused: { title: 'This request could not be served', message: 'The site could not serve this request.' },
    home: 'Back to the home page',
    sites: 'See the published sites',
  },
};

/** The problem a page stands for: its status, code and the request's id. */
export interface ProblemShown {
  status: number;
  code: string;
  requestId: string;
}

function textsFor(lang: Language, status: number, site: boolean): Texts {
  const t = TEXTS[lang];
  if (status === 404) return site ? t.notFound : t.noSite;
  if (status === 503) return t.unavailable;
  return status >= 500 ? t.failed : t.refused;
}

const smallPrint = (p: ProblemShown) => `<p class="problem-code">${p.status} · <code>${escapeHtml(p.code)}</code> · ${escapeHtml(p.requestId)}</p>`;

/**
 * A live site's error page: its theme (variables inline, allowed by `style.source`, and
 * the site's stylesheet), its brand's header and footer, in `frame.lang`, with a link
 * to the site's home in that language.
 */
export function themedErrorPage(frame: Frame & { home: string; faviconUrl?: string | undefined }, style: InlineStyle, problem: ProblemShown): string {
  const t = textsFor(frame.lang, problem.status, true);
  return `<!doctype html>
<html lang="${frame.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(t.title)} · ${escapeHtml(frame.project.name)}</title>
<link rel="icon" href="${escapeHtml(frame.faviconUrl ?? FAVICON_PATH)}">
<style>${style.css}</style>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
${header(frame)}
<main class="problem" data-status="${problem.status}">
<h1>${escapeHtml(t.title)}</h1>
<p class="lead">${escapeHtml(t.message)}</p>
<a class="cta home" href="${escapeHtml(frame.home)}">${escapeHtml(TEXTS[frame.lang].home)}</a>
${smallPrint(problem)}
</main>
${footer(frame)}
</body>
</html>
`;
}

// The neutral page's only style, inline and allowed by its hash: no site, so no files.
const NEUTRAL_STYLE = [
  'body{font:16px/1.6 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#111827;background:#ffffff}',
  'h1{line-height:1.2}a{color:#4f46e5}.problem-code{color:#6b7280;font-size:.85rem}',
].join('');

/** The CSP source of the neutral page's style. */
export const NEUTRAL_STYLE_SOURCE = styleSource(NEUTRAL_STYLE);

/**
 * The page for a host where no site is live (unknown, or nothing published), and the
 * fallback when a site's own page cannot be drawn: nothing of any site on it, so an
 * unknown host and an unpublished site look the same (API.md, Errors). `link` leads
 * on: the emulator's list of published sites, or the site's home.
 */
export function neutralErrorPage(lang: Language, problem: ProblemShown, link: { href: string; site: boolean }): string {
  const t = textsFor(lang, problem.status, link.site);
  const label = link.site ? TEXTS[lang].home : TEXTS[lang].sites;
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(t.title)}</title>
<style>${NEUTRAL_STYLE}</style>
</head>
<body>
<main class="problem" data-status="${problem.status}">
<h1>${escapeHtml(t.title)}</h1>
<p>${escapeHtml(t.message)}</p>
<p><a class="home" href="${escapeHtml(link.href)}">${escapeHtml(label)}</a></p>
${smallPrint(problem)}
</main>
</body>
</html>
`;
}
