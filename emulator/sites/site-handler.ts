import type { Context } from 'hono';
import type { AppEnv } from '../../src/platform/context.js';
import { problemResponse } from '../../src/platform/problem.js';
import { requestHeader } from '../../src/platform/response.js';
import { ServiceError } from '../../src/platform/service-error.js';
import type { Language } from '../../src/text/language.js';
import type { Service } from '../../src/service.js';
import { CHAT_WIDGET_SCRIPT } from './chat-widget.js';
import { normalizePagePath, trimTrailingSlashes } from '../../src/pages/page-path.js';
import { renderPage, siteStylesheet, STYLESHEET_PATH, WIDGET_PATH, type BrandView } from './page-html.js';
import { RenderedPages } from './rendered-pages.js';
import { robotsTxt, sitemapXml } from './site-files.js';
import type { SiteChat } from './site-chat.js';
import { SITE_HEADERS } from './site-headers.js';

export interface SiteDeps {
  service: Service;
  /** The brand a site's pages show. */
  brand(workspaceId: string, projectId: string, origin: string): Promise<BrandView>;
  chat: SiteChat;
}

// One answer for an unknown host and an unpublished page (API.md, Errors).
const notFound = (c: Context<AppEnv>) => problemResponse(c, new ServiceError('svc.host.not_found'));

function text(c: Context<AppEnv>, body: string, type: string): Response {
  return new Response(body, { status: 200, headers: { 'content-type': type, 'cache-control': 'no-cache', 'x-request-id': c.get('requestId') } });
}

/**
 * Serves the hosted sites on `<slug>.<siteDomain>`: published pages as complete HTML
 * with their stylesheet and chat script, `robots.txt`, `sitemap.xml`, `llms.txt` and the
 * pages' chat, every answer under the site's CSP (`site-headers.ts`). Answers undefined for
 * any other host (the API), and for `/files/` (signed asset URLs work on every host).
 */
export function createSiteHandler(deps: SiteDeps): (c: Context<AppEnv>) => Promise<Response> | undefined {
  const suffix = `.${deps.service.settings.siteDomain.toLowerCase()}`;
  const rendered = new RenderedPages(deps.service.workers, deps.service.settings.log);
  return (c) => {
    // Every request passes here: look at the Host header before building a URL.
    const hostHeader = (requestHeader(c, 'host') ?? '').toLowerCase().replace(/:\d+$/, '');
    if (hostHeader && !hostHeader.endsWith(suffix)) return undefined;
    const url = new URL(c.req.url);
    const host = url.hostname.toLowerCase();
    if (!host.endsWith(suffix) || url.pathname.startsWith('/files/')) return undefined;
    // Every answer from here on, the 404 and a failure included, carries the site's
    // headers: the shell adds the context's headers to whatever response is built.
    c.set('responseHeaders', { ...c.get('responseHeaders'), ...SITE_HEADERS });
    return serve(deps, rendered, c, host.slice(0, -suffix.length), url);
  };
}

async function serve(deps: SiteDeps, rendered: RenderedPages, c: Context<AppEnv>, slug: string, url: URL): Promise<Response> {
  const { service } = deps;
  const site = slug && !slug.includes('.') ? await service.projects.getBySlug(slug) : undefined;
  if (!site) return notFound(c);
  const { project, workspaceId } = site;
  const origin = `${url.protocol}//${url.host}`;
  const method = c.req.method;

  if (url.pathname === '/_site/chat' || url.pathname.startsWith('/_site/chat/')) return deps.chat.handle(c, site, url);
  if (method !== 'GET' && method !== 'HEAD') return notFound(c);
  if (url.pathname === WIDGET_PATH) return text(c, CHAT_WIDGET_SCRIPT, 'text/javascript; charset=utf-8');
  if (url.pathname === STYLESHEET_PATH) {
    return text(c, siteStylesheet(await service.theme.getTheme(workspaceId, project.id)), 'text/css; charset=utf-8');
  }
  if (url.pathname === '/robots.txt') return text(c, robotsTxt(project, origin), 'text/plain; charset=utf-8');
  if (url.pathname === '/llms.txt') return text(c, project.llmsTxt.text, 'text/plain; charset=utf-8');
  if (url.pathname === '/sitemap.xml') {
    return text(c, sitemapXml(project, await service.pages.listPublished(project.id), origin), 'application/xml; charset=utf-8');
  }

  // Judged like the paths pages are saved under: a look-alike letter names no page.
  const normalized = normalizePagePath(trimTrailingSlashes(url.pathname));
  if (!('path' in normalized)) return notFound(c);
  const page = await service.pages.getPublishedByPath(project.id, normalized.path);
  if (!page) return notFound(c);
  const asked = url.searchParams.get('lang');
  const lang: Language = project.locales.includes(asked as Language)
    ? (asked as Language)
    : project.locales.includes(page.defaultLocale) ? page.defaultLocale : project.defaultLocale;
  const home = page.path === '/' ? page : await service.pages.getPublishedByPath(project.id, '/');
  const brand = await deps.brand(workspaceId, project.id, origin);
  const bodyHtml = page.kind === 'document' ? await rendered.render(page.id, lang, page.body[lang] || page.body[page.defaultLocale]) : '';
  return text(c, renderPage({ project, page, home, brand, lang, bodyHtml }, origin), 'text/html; charset=utf-8');
}
