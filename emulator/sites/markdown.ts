import type { Marked } from 'marked';
import type sanitizeHtml from 'sanitize-html';

// Loaded on the first page rendered, not at start-up: Markdown builds its grammar when
// loaded, and the sanitiser brings an HTML parser and CSS tooling.
let tools: Promise<{ marked: Marked; sanitize: typeof sanitizeHtml }> | undefined;
const load = async () => ({
  marked: new (await import('marked')).Marked({ gfm: true, async: false }),
  sanitize: (await import('sanitize-html')).default,
});

const SITE = 'http://site.invalid';

/**
 * A link or image address a browser would take where it says: written with its scheme
 * (the scheme lists below then judge it), or a relative address that stays on the
 * site. Judged by the WHATWG URL parser as a browser would read it, so `/\evil.example`,
 * a tab or newline inside `//`, and other spellings of another host do not pass.
 */
function saysWhereItGoes(address: string): boolean {
  if (URL.canParse(address)) return true;
  return URL.canParse(address, `${SITE}/page/`) && new URL(address, `${SITE}/page/`).origin === SITE;
}

// Runs before the attribute and scheme filters, on the value as the browser will see it.
const keepOnSite =
  (attribute: 'href' | 'src'): sanitizeHtml.Transformer =>
  (tagName, attribs) => {
    const value = attribs[attribute];
    if (value === undefined || saysWhereItGoes(value)) return { tagName, attribs };
    const { [attribute]: _dropped, ...rest } = attribs;
    return { tagName, attribs: rest };
  };

/** A task list's box as GFM writes it: a checkbox, ticked or not, that a visitor cannot change. */
const taskBox: sanitizeHtml.Transformer = (tagName, attribs) => ({
  tagName,
  attribs: attribs.type === 'checkbox' ? { type: 'checkbox', disabled: '', ...(attribs.checked !== undefined && { checked: '' }) } : {},
});

// What a page body may contain once rendered: text structure, links, images, tables.
// Images: https anywhere (the pages' CSP allows `img-src 'self' https:`) or a path on
// the site; an http image would be blocked by the CSP, so it is not written at all.
const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'input',
  ],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], th: ['align'], td: ['align'], input: ['type', 'checked', 'disabled'] },
  // `tel:` as the brand's links take it (D-066): a phone number a visitor taps.
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  transformTags: { a: keepOnSite('href'), img: keepOnSite('src'), input: taskBox },
  // An image whose address was refused has nothing to show; an input is only a task
  // list's box (`- [x] done`), never a field a page could ask a visitor to fill in.
  exclusiveFilter: (frame) => (frame.tag === 'img' && !frame.attribs.src) || (frame.tag === 'input' && frame.attribs.type !== 'checkbox'),
};

/** Markdown rendered by `marked`, then sanitised by `sanitize-html`: no script survives. */
export async function renderMarkdown(markdown: string): Promise<string> {
  tools ??= load();
  const { marked, sanitize } = await tools;
  return sanitize(marked.parse(markdown) as string, ALLOWED);
}

/**
 * The first `<h1>` of a rendered page body, its text as a visitor reads it (white space
 * collapsed), or null when the body has none: what the console shows as a document
 * page's heading (D-1202).
 */
export async function firstHeading(html: string): Promise<string | null> {
  const { parseHTML } = await import('linkedom');
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const text = (document.querySelector('h1')?.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text || null;
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}
