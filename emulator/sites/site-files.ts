import type { Page } from '../../src/pages/pages.schema.js';
import type { Project } from '../../src/projects/projects.schema.js';
import { escapeHtml } from './markdown.js';

// Crawlers of AI search answers, and of model training (robots.aiSearch / aiTraining).
const AI_SEARCH_BOTS = ['OAI-SearchBot', 'PerplexityBot', 'Claude-SearchBot'];
const AI_TRAINING_BOTS = ['GPTBot', 'CCBot', 'Google-Extended', 'ClaudeBot', 'anthropic-ai', 'Applebot-Extended'];

/** `robots.txt` from the project's robots settings; `raw` is appended as written. */
export function robotsTxt(project: Project, origin: string): string {
  const { robots } = project;
  // A crawler obeys only the group naming it (RFC 9309, 2.2.1), so a group that allows
  // a bot repeats the owner's `disallow` paths: they hold for every crawler let in.
  const allowedRules = ['Allow: /', ...robots.disallow.map((path) => `Disallow: ${path}`)];
  const lines = ['User-agent: *', ...(robots.indexable ? allowedRules : ['Disallow: /'])];
  for (const [bots, allowed] of [
    [AI_SEARCH_BOTS, robots.aiSearch && robots.indexable],
    [AI_TRAINING_BOTS, robots.aiTraining && robots.indexable],
  ] as const) {
    for (const bot of bots) lines.push('', `User-agent: ${bot}`, ...(allowed ? allowedRules : ['Disallow: /']));
  }
  lines.push('', `Sitemap: ${origin}/sitemap.xml`);
  if (robots.raw.trim()) lines.push('', robots.raw.trim());
  return `${lines.join('\n')}\n`;
}

/** `sitemap.xml`: published pages not excluded, with their priorities, and `extraUrls`. */
export function sitemapXml(project: Project, pages: Page[], origin: string): string {
  const url = (loc: string, priority: number, changefreq: string, lastmod?: string) =>
    `  <url>\n    <loc>${escapeHtml(loc)}</loc>\n${lastmod ? `    <lastmod>${lastmod}</lastmod>\n` : ''}    <changefreq>${escapeHtml(changefreq)}</changefreq>\n    <priority>${priority.toFixed(1)}</priority>\n  </url>`;
  const entries = pages
    .filter((p) => !p.sitemap.sitemapExclude)
    .sort((a, b) => b.sitemap.priority - a.sitemap.priority || a.path.localeCompare(b.path))
    .map((p) => url(`${origin}${p.path}`, p.sitemap.priority, p.sitemap.changefreq, (p.publishedAt ?? p.updatedAt).slice(0, 10)));
  for (const extra of project.sitemap.extraUrls) entries.push(url(`${origin}${extra.path}`, extra.priority, extra.changefreq));
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
}
