import type { Marked } from 'marked';
import type sanitizeHtml from 'sanitize-html';

// Loaded on the first page rendered, not at start-up: Markdown builds its grammar when
// loaded, and the sanitiser brings an HTML parser and CSS tooling.
let tools: Promise<{ marked: Marked; sanitize: typeof sanitizeHtml }> | undefined;
const load = async () => ({
  marked: new (await import('marked')).Marked({ gfm: true, async: false }),
  sanitize: (await import('sanitize-html')).default,
});

// What a page body may contain once rendered: text structure, links, images, tables.
const ALLOWED: sanitizeHtml.IOptions = {
  allowedTags: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], th: ['align'], td: ['align'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
};

/** Markdown rendered by `marked`, then sanitised by `sanitize-html`: no script survives. */
export async function renderMarkdown(markdown: string): Promise<string> {
  const { marked, sanitize } = await (tools ??= load());
  return sanitize(marked.parse(markdown) as string, ALLOWED);
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}
