import type { Context } from 'hono';
import { html } from 'hono/html';
import * as v from 'valibot';
import type { AppEnv } from '../../src/platform/context.js';
import { named } from '../../src/platform/named-schema.js';
import type { Router } from '../../src/platform/route.js';
import type { Service } from '../../src/service.js';
import { packageVersion } from '../package-info.js';
import { ERRORS_PATH } from './error-pages.js';
import { htmlPage, jsonPage, wantsJson } from './doc-page.js';

/** Where the emulator UI is served (`emulator/ui`). */
export const UI_PATH = '/_emulator/ui';

/** Published sites the home page names; the rest are reachable all the same. */
const SITES_SHOWN = 20;

const HomeSchema = named(
  'Home',
  v.object({
    name: v.literal('svc-emulator'),
    version: v.string(),
    links: v.object({ ui: v.string(), openapi: v.string(), health: v.string(), errors: v.string() }),
    sites: v.object({ address: v.string(), published: v.array(v.object({ slug: v.string(), url: v.string() })), more: v.boolean() }),
  }),
);
type Home = v.InferOutput<typeof HomeSchema>;

/** The port the caller reached us on, as its Host header says (none in process). */
function portOf(c: Context<AppEnv>): string {
  const host = c.req.header('host') ?? new URL(c.req.url).host;
  const match = /:(\d{1,5})$/.exec(host);
  return match ? `:${match[1]}` : '';
}

async function home(c: Context<AppEnv>, service: Service): Promise<Home> {
  const siteOrigin = (slug: string) => `http://${slug}.${service.settings.siteDomain}${portOf(c)}/`;
  // A site is live when its home page is published (no other page may be live without it).
  const rows = await service.db
    .selectFrom('project_slugs')
    .innerJoin('pages', 'pages.project_id', 'project_slugs.project_id')
    .select('project_slugs.slug')
    .where('project_slugs.state', '=', 'active')
    .where('pages.path', '=', '/')
    .where('pages.status', '=', 'published')
    .orderBy('project_slugs.slug')
    .limit(SITES_SHOWN + 1)
    .execute();
  return {
    name: 'svc-emulator',
    version: packageVersion(),
    links: { ui: UI_PATH, openapi: '/v1/openapi.json', health: '/_emulator/health', errors: ERRORS_PATH },
    sites: {
      address: siteOrigin('<slug>'),
      published: rows.slice(0, SITES_SHOWN).map((r) => ({ slug: r.slug, url: siteOrigin(r.slug) })),
      more: rows.length > SITES_SHOWN,
    },
  };
}

function homeHtml(h: Home) {
  const sites = h.sites.published.map((s) => html`<li><a href="${s.url}">${s.url}</a></li>`);
  return html`<h1>svc-emulator <span class="muted">${h.version}</span></h1>
<p>An offline, deterministic local twin of the workspace sites, knowledge and agent chat API. The API is under <code>/v1</code>; send <code>Authorization: Bearer &lt;key&gt;</code>.</p>
<ul>
<li><a href="${h.links.ui}">Emulator UI</a>: workspaces, requests, faults and the clock</li>
<li><a href="${h.links.openapi}">OpenAPI description</a> (<code>${h.links.openapi}</code>)</li>
<li><a href="${h.links.errors}">Error reference</a>: every problem code</li>
<li><a href="${h.links.health}">Health</a> (<code>${h.links.health}</code>), for readiness probes</li>
</ul>
<h2>Hosted sites</h2>
<p>Published pages are served at <code>${h.sites.address}&lt;path&gt;</code>.</p>
${sites.length ? html`<ul>${sites}</ul>${h.sites.more ? html`<p class="muted">and more.</p>` : ''}` : html`<p class="muted">No site is published yet.</p>`}`;
}

/**
 * `GET /`: where to go from here (the emulator UI, the OpenAPI
 * description, the error reference, health, the published sites), as HTML for browsers
 * and JSON on `Accept: application/json`. It names no key and no secret.
 */
export function registerHomePage(router: Router, service: Service): void {
  router.add(
    {
      method: 'GET',
      path: '/',
      tags: ['Docs'],
      security: 'none',
      operationId: 'home',
      summary:
        'Where to go: the emulator UI, the OpenAPI description, the error reference, health and the published sites (HTML, or JSON on Accept: application/json)',
      responses: { 200: { description: 'Links', schema: HomeSchema, also: ['text/html'] } },
    },
    async ({ c }) => {
      const h = await home(c, service);
      return wantsJson(c) ? jsonPage(c, h) : htmlPage(c, 200, 'svc-emulator', homeHtml(h));
    },
  );
}
