import type { Context } from 'hono';
import type { AppEnv } from '../../src/platform/context.js';
import { ownBaseUrl } from '../../src/platform/own-origin.js';
import { preferredLanguage } from '../../src/platform/language.js';
import { requestHeader, respond } from '../../src/platform/response.js';
import { ServiceError } from '../../src/platform/service-error.js';
import type { Project } from '../../src/projects/projects.schema.js';
import type { Language } from '../../src/text/language.js';
import type { Service } from '../../src/service.js';
import { CHAT_WIDGET_SCRIPT } from './chat-widget.js';
import { neutralErrorPage, NEUTRAL_STYLE_SOURCE, themedErrorPage, wantsHtml, type ProblemShown } from './error-page.js';
import { normalizePagePath } from '../../src/pages/page-path.js';
import { DEFAULT_FAVICON, FAVICON_PATH, renderPage, SITE_STYLESHEET, STYLESHEET_PATH, WIDGET_PATH, type BrandView } from './page-html.js';
import { RenderedPages } from './rendered-pages.js';
import { robotsTxt, sitemapXml } from './site-files.js';
import type { SiteChat } from './site-chat.js';
import { siteCsp, SITE_HEADERS } from './site-headers.js';
import { ThemeStyles } from './theme-style.js';

export interface SiteDeps {
  service: Service;
  /** The brand a site's pages show. */
  brand(workspaceId: string, projectId: string, origin: string): Promise<BrandView>;
  chat: SiteChat;
  /** The rendered bodies, shared with the console's page list (D-1202); one of its own when left out. */
  rendered?: RenderedPages;
}

/** The hosted sites: what answers on a site's host, and how a problem shows there. */
export interface SiteHandler {
  /** Answers a request to a site's host; undefined for any other host (the API) and for `/files/`. */
  serve(c: Context<AppEnv>): Promise<Response> | undefined;
  /**
   * A problem as a site's visitor sees it: a page when the caller prefers HTML (D-873),
   * else undefined (the problem document). Either way, on a site's host the answer gets
   * the site's headers, also when a fault answered before the site was looked at.
   */
  problemPage(c: Context<AppEnv>, error: ServiceError): Promise<Response> | undefined;
}

// One answer for an unknown host and an unpublished page (API.md, Errors): thrown, so
// the app's error path shows it, as a page to a browser (`problemPage`).
const notFound = () => new ServiceError('svc.host.not_found');

function text(c: Context<AppEnv>, body: string, type: string): Response {
  return new Response(body, { status: 200, headers: { 'content-type': type, 'cache-control': 'no-cache', 'x-request-id': c.get('requestId') } });
}

const html = (c: Context<AppEnv>, status: number, body: string, styleSources: string[], extra: Record<string, string> = {}) =>
  respond(c, status, body, {
    ...extra,
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'content-security-policy': siteCsp(styleSources),
  });

/** The language a site's page is shown in: `?lang=` when the site serves it, else `fallback`. */
function languageOf(url: URL, project: Project, fallback: Language): Language {
  const asked = url.searchParams.get('lang');
  return project.locales.includes(asked as Language) ? (asked as Language) : fallback;
}

/**
 * Serves the hosted sites on `<slug>.<siteDomain>`: published pages as complete HTML
 * with the theme's variables inline and their stylesheet and chat script, `robots.txt`,
 * `sitemap.xml`, `llms.txt` and the pages' chat, every answer under the site's CSP
 * (`site-headers.ts`); a problem there is a themed page for a browser (`problemPage`).
 */
export function createSiteHandler(deps: SiteDeps): SiteHandler {
  const suffix = `.${deps.service.settings.siteDomain.toLowerCase()}`;
  const rendered = deps.rendered ?? new RenderedPages(deps.service.workers, deps.service.settings.log);
  const styles = new ThemeStyles();

  // The site's name when the request is for a site's host, not for `/files/`.
  const siteOf = (c: Context<AppEnv>): { slug: string; url: URL } | undefined => {
    // Every request passes here: look at the Host header before building a URL.
    // A name with its root's dot (`cafe.localhost.`) is the same host, as DNS and browsers read it (D-1180).
    const hostHeader = (requestHeader(c, 'host') ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    if (hostHeader && !hostHeader.endsWith(suffix)) return undefined;
    const url = new URL(c.req.url);
    const host = url.hostname.toLowerCase().replace(/\.$/, '');
    if (!host.endsWith(suffix) || url.pathname.startsWith('/files/')) return undefined;
    return { slug: host.slice(0, -suffix.length), url };
  };
  // Every answer from here on, the 404 and a failure included, carries the site's
  // headers: the shell adds the context's headers to whatever response is built.
  const stamp = (c: Context<AppEnv>) => c.set('responseHeaders', { ...c.get('responseHeaders'), ...SITE_HEADERS });

  const errorPage = async (c: Context<AppEnv>, slug: string, url: URL, error: ServiceError): Promise<Response> => {
    const problem: ProblemShown = { status: error.status, code: error.code, requestId: c.get('requestId') };
    const extra = error.headers ?? {};
    const neutral = (home?: string) => {
      // No site to take a language from: `?lang=`, else the visitor's Accept-Language.
      const asked = url.searchParams.get('lang');
      const lang: Language = asked === 'es' || asked === 'en' ? asked : preferredLanguage(requestHeader(c, 'accept-language'));
      const link = home === undefined ? { href: `${ownBaseUrl(c)}/`, site: false } : { href: home, site: true };
      return html(c, error.status, neutralErrorPage(lang, problem, link), [NEUTRAL_STYLE_SOURCE], extra);
    };
    try {
      const { service } = deps;
      const site = slug && !slug.includes('.') ? await service.projects.getBySlug(slug) : undefined;
      // Only a live site (its home page published) shows itself: an unknown host and a
      // site with nothing published get the same page.
      if (!site || !(await service.pages.getPublishedByPath(site.project.id, '/'))) return neutral();
      const { project, workspaceId } = site;
      const lang = languageOf(url, project, project.defaultLocale);
      const origin = `${url.protocol}//${url.host}`;
      const [theme, brand] = await Promise.all([service.theme.getTheme(workspaceId, project.id), deps.brand(workspaceId, project.id, origin)]);
      const style = styles.get(theme.cssVariables);
      const home = lang === project.defaultLocale ? '/' : `/?lang=${lang}`;
      const page = themedErrorPage({ project, brand, lang, home, faviconUrl: brand.faviconUrl }, style, problem);
      return html(c, error.status, page, [style.source], extra);
    } catch (failure) {
      // The store may be what failed: the page that needs nothing of it.
      deps.service.settings.log(`could not draw the site's error page for ${error.code} (${problem.requestId}); the neutral one is shown`, failure);
      return neutral('/');
    }
  };

  return {
    serve(c) {
      const at = siteOf(c);
      if (!at) return undefined;
      stamp(c);
      return serve(deps, rendered, styles, c, at.slug, at.url);
    },
    problemPage(c, error) {
      const at = siteOf(c);
      if (!at) return undefined;
      stamp(c);
      return wantsHtml(c) ? errorPage(c, at.slug, at.url, error) : undefined;
    },
  };
}

/** The site's own files and chat, which a site shows only once it has a published page. */
const SITE_FILES: ReadonlySet<string> = new Set(['/robots.txt', '/llms.txt', '/sitemap.xml']);
const isPagePath = (path: string) => !SITE_FILES.has(path) && !path.startsWith('/_site/');

async function serve(deps: SiteDeps, rendered: RenderedPages, styles: ThemeStyles, c: Context<AppEnv>, slug: string, url: URL): Promise<Response> {
  const { service } = deps;
  const site = slug && !slug.includes('.') ? await service.projects.getBySlug(slug) : undefined;
  if (!site) throw notFound();
  // A site with nothing published answers as an unknown host does, whatever is asked of
  // it (its robots.txt, llms.txt, chat): the two must not be told apart (API.md, Errors).
  // A page path needs no asking: only a published page is served (D-1078).
  if (!isPagePath(url.pathname) && !(await service.pages.hasPublished(site.project.id))) throw notFound();
  const { project, workspaceId } = site;
  const origin = `${url.protocol}//${url.host}`;
  const method = c.req.method;

  if (url.pathname === '/_site/chat' || url.pathname.startsWith('/_site/chat/')) return deps.chat.handle(c, site, url);
  if (method !== 'GET' && method !== 'HEAD') throw notFound();
  if (url.pathname === WIDGET_PATH) return text(c, CHAT_WIDGET_SCRIPT, 'text/javascript; charset=utf-8');
  if (url.pathname === STYLESHEET_PATH) return text(c, SITE_STYLESHEET, 'text/css; charset=utf-8');
  if (url.pathname === FAVICON_PATH) return text(c, DEFAULT_FAVICON, 'image/svg+xml');
  if (url.pathname === '/robots.txt') return text(c, robotsTxt(project, origin), 'text/plain; charset=utf-8');
  if (url.pathname === '/llms.txt') return text(c, project.llmsTxt.text, 'text/plain; charset=utf-8');
  if (url.pathname === '/sitemap.xml') {
    return text(c, sitemapXml(project, await service.pages.listPublished(project.id), origin), 'application/xml; charset=utf-8');
  }

  // Judged like the paths pages are saved under: a look-alike letter names no page, nor
  // does a trailing slash or an empty segment (`/about/`, `//`): CONTRACT serves a page
  // at its path and nothing else (D-1167).
  const normalized = normalizePagePath(url.pathname);
  if (!('path' in normalized)) throw notFound();
  const page = await service.pages.getPublishedByPath(project.id, normalized.path);
  if (!page) throw notFound();
  const lang = languageOf(url, project, project.locales.includes(page.defaultLocale) ? page.defaultLocale : project.defaultLocale);
  const home = page.path === '/' ? page : await service.pages.getPublishedByPath(project.id, '/');
  const [brand, theme] = await Promise.all([deps.brand(workspaceId, project.id, origin), service.theme.getTheme(workspaceId, project.id)]);
  // A body not written in this language shows the source language's, marked as such (D-1103).
  const bodyLang = page.body[lang] ? lang : page.defaultLocale;
  const bodyHtml = page.kind === 'document' ? await rendered.render(page.id, lang, page.body[bodyLang]) : '';
  // The variables and their hash come from the theme's cached style (D-871).
  const style = styles.get(theme.cssVariables);
  return html(c, 200, renderPage({ project, page, home, brand, lang, bodyHtml, bodyLang }, origin, style), [style.source]);
}
