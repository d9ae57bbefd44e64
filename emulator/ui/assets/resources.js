// The chosen workspace's records, as `GET /_emulator/workspaces/{id}/resources`
// answers them: Knowledge (sources), Agents (with the pages they answer on), Sites
// (projects, pages with the title a browser tab shows, assets).
import { bytes, fillRows, h, shortTime } from './dom.js';

const status = (value, title) => h('span', { class: `badge ${value}`, 'data-status': value, title }, value);
let siteAddress;

/**
 * The published sites' address pattern (`http://<slug>.localhost:4010/`): the sites'
 * domain, which the page names, on this page's port. Read from the page rather than
 * asked of the emulator's home page, which the journal would list (D-168).
 */
export function loadSiteAddress() {
  const domain = document.querySelector('meta[name="svc-site-domain"]')?.getAttribute('content');
  // Without it the Sites section shows slugs only.
  if (domain) siteAddress = `${location.protocol}//<slug>.${domain}${location.port ? `:${location.port}` : ''}/`;
}

// The newest hundred of each kind, a hundred more per "Show more", up to what the
// resources route answers at most (`limit`, 1000).
const STEP = 100;
const MOST = 1000;
let limit = STEP;

/** How many records of each kind the UI asks for. */
export function resourcesLimit() {
  return limit;
}

/** Back to the newest hundred (another workspace is shown). */
export function resetResourcesLimit() {
  limit = STEP;
}

function fill(kind, rows, list, empty) {
  const tbody = document.querySelector(`[data-rows="${kind}"]`);
  fillRows(tbody, rows, tbody.closest('table').tHead.rows[0].cells.length, empty);
  const count = document.querySelector(`[data-count="${kind}"]`);
  count.textContent = `(${list.data.length}${list.hasMore ? '+' : ''})`;
  count.parentElement.querySelector(`[data-more="${kind}"]`)?.remove();
  if (list.hasMore && limit < MOST) {
    const label = `Show ${Math.min(STEP, MOST - limit)} more`;
    count.after(h('button', { type: 'button', class: 'small', 'data-more': kind, 'aria-label': `${label} ${kind}` }, label));
  }
}

// Every list grows together: the sections read one another (an agent's pages, a site's home).
document.addEventListener('click', (event) => {
  if (!event.target.closest?.('button[data-more]')) return;
  limit = Math.min(MOST, limit + STEP);
  document.dispatchEvent(new CustomEvent('svc:resources-more'));
});

/** A site is live when its home page is published; answers its `/` page then. */
function homeOf(projectId, pages) {
  return pages.find((p) => p.projectId === projectId && p.path === '/' && p.status === 'published');
}

// As the hosted page renders its <title> (emulator/sites/page-html.ts): the page's SEO
// title in its language, else the home page's, else the site's name (D-855).
function tabTitle(page, project, home) {
  const lang = project?.locales.includes(page.defaultLocale) ? page.defaultLocale : (project?.defaultLocale ?? page.defaultLocale);
  return page.seo?.title?.[lang] || home?.seo?.title?.[lang] || project?.name || page.name;
}

// As the hosted page shows it: an agent page its editorial title, a document page its
// body's first heading, which the server reads from the rendered body (D-1202).
function heading(page) {
  if (page.kind === 'document') return page.bodyHeading ?? '';
  const e = page.editorial ?? {};
  const lang = page.defaultLocale;
  return [e.title?.[lang], e.titleAccent?.[lang]].filter(Boolean).join(' ');
}

/**
 * The agents in the order the chat offers them: those answering on a published
 * site's home page first, then on other published pages, then the rest (D-853).
 */
export function agentsBySite(res) {
  const published = new Set(res.projects.data.filter((p) => homeOf(p.id, res.pages.data)).map((p) => p.id));
  const rank = (agent) => {
    const pages = res.pages.data.filter((p) => p.agentId === agent.id && p.status === 'published' && published.has(p.projectId));
    return pages.some((p) => p.path === '/') ? 0 : pages.length ? 1 : 2;
  };
  return res.agents.data
    .map((a, i) => ({ a, r: rank(a), i }))
    .sort((x, y) => x.r - y.r || x.i - y.i)
    .map((x) => x.a);
}

function siteLink(slug, path = '/') {
  if (!siteAddress) return h('code', {}, slug);
  const url = `${siteAddress.replace('<slug>', slug).replace(/\/$/, '')}${path}`;
  return h('a', { href: url, target: '_blank', rel: 'noopener' }, url);
}

/** Fills Knowledge, Agents and Sites from one resources answer. */
export function renderResources(res) {
  const projects = new Map(res.projects.data.map((p) => [p.id, p]));
  const agentNames = new Map(res.agents.data.map((a) => [a.id, a.name]));
  fill(
    'sources',
    res.sources.data.map((s) =>
      h(
        'tr',
        { 'data-id': s.id },
        h('td', {}, s.title),
        h('td', {}, s.kind),
        h('td', {}, status(s.status, s.error ?? undefined), s.error ? h('small', {}, ` ${s.error}`) : null),
        h('td', { title: s.agentId ?? 'the workspace pool' }, s.agentId ? (agentNames.get(s.agentId) ?? s.agentId) : 'pool'),
        h('td', { class: 'num' }, s.chunkCount),
        h('td', {}, shortTime(s.updatedAt)),
      ),
    ),
    res.sources,
    'No sources yet: an app adds them through /v1/knowledge.',
  );

  const answersOn = (agentId) =>
    res.pages.data
      .filter((p) => p.agentId === agentId)
      .map((p) => `${projects.get(p.projectId)?.slug ?? p.projectId}${p.path}${p.status === 'published' ? '' : ` (${p.status})`}`)
      .join(', ');
  fill(
    'agents',
    agentsBySite(res).map((a) =>
      h(
        'tr',
        { 'data-id': a.id },
        h('td', {}, a.name, h('br'), h('code', { class: 'muted' }, a.id)),
        h('td', {}, a.identity.businessName),
        h('td', {}, answersOn(a.id) || '—'),
        h('td', {}, h('button', { type: 'button', class: 'small', 'data-chat': a.id, 'aria-label': `Chat with ${a.name}` }, 'Chat')),
      ),
    ),
    res.agents,
    'No agents yet: an app makes them with POST /v1/agents.',
  );

  fill(
    'projects',
    res.projects.data.map((p) => {
      const live = homeOf(p.id, res.pages.data);
      return h(
        'tr',
        { 'data-id': p.id },
        h('td', {}, p.name),
        h('td', {}, live ? siteLink(p.slug) : h('code', {}, p.slug)),
        h('td', {}, p.locales.join(' ')),
        h('td', {}, status(live ? 'published' : 'draft', live ? 'Its home page is published' : 'No published home page')),
        h('td', {}, h('code', {}, p.id)),
      );
    }),
    res.projects,
    'No sites yet.',
  );

  fill(
    'pages',
    res.pages.data.map((p) => {
      const project = projects.get(p.projectId);
      const home = homeOf(p.projectId, res.pages.data);
      // A published page is served whether or not its site's home is (D-1078): it links.
      const open = p.status === 'published' && project ? siteLink(project.slug, p.path) : h('code', {}, p.path);
      return h(
        'tr',
        { 'data-id': p.id },
        h('td', {}, open),
        h('td', { 'data-title': '' }, tabTitle(p, project, home)),
        h('td', {}, heading(p) || '—'),
        h('td', {}, status(p.status)),
        h('td', {}, project?.name ?? p.projectId),
        h('td', {}, p.agentId ? (agentNames.get(p.agentId) ?? p.agentId) : '—'),
      );
    }),
    res.pages,
    'No pages yet.',
  );

  fill(
    'assets',
    res.assets.data.map((a) =>
      h(
        'tr',
        { 'data-id': a.id },
        h('td', {}, a.kind === 'image' ? h('img', { src: a.url, alt: a.alt ?? '', class: 'thumb', loading: 'lazy' }) : '▶'),
        h('td', {}, h('code', {}, a.id)),
        h('td', {}, a.kind),
        h('td', {}, a.contentType),
        h('td', { class: 'num' }, bytes(a.byteSize)),
        h('td', {}, a.key ?? ''),
        h('td', {}, h('a', { href: a.url, target: '_blank', rel: 'noopener', 'data-file': a.id, 'aria-label': `Open ${a.key || a.id}` }, 'Open')),
      ),
    ),
    res.assets,
    'No assets yet.',
  );
}

/**
 * Points each asset's Open link at its URL as just signed: the table is not redrawn for
 * a new signature (D-1181), and the one drawn would expire (D-1187).
 */
export function resignFileLinks(assets) {
  for (const a of assets.data) {
    const link = document.querySelector(`[data-rows="assets"] a[data-file="${CSS.escape(a.id)}"]`);
    if (link && link.getAttribute('href') !== a.url) link.setAttribute('href', a.url);
  }
}
