import { IngestError } from './ingest-error.js';

// Never content: code, embedded media, site chrome. Readability drops most of these
// itself; removing them first keeps a short page's chrome out of the fallback too.
const NOISE =
  'head, title, meta, link, base, script, style, noscript, template, iframe, object, embed, svg, canvas, form, nav, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [aria-hidden="true"], [hidden]';
const CHROME = 'header, footer';

export interface HtmlText {
  /** The main content as Markdown. */
  markdown: string;
  title: string | undefined;
}

type Turndown = import('turndown');
let turndown: Promise<Turndown> | undefined;

function loadTurndown(): Promise<Turndown> {
  turndown ??= import('turndown').then(({ default: TurndownService }) => {
    const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
    // Chunks are read for their words: keep link and image text, drop addresses.
    service.addRule('linkText', { filter: 'a', replacement: (content) => content });
    service.addRule('imageAlt', {
      filter: 'img',
      replacement: (_c, node) => ((node as { getAttribute(n: string): string | null }).getAttribute('alt') ?? '').trim(),
    });
    return service;
  });
  return turndown;
}

function clean(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** Readability must keep at least this share of the page's text to be used at all... */
const MIN_KEPT = 0.4;
/** ...and what it drops past this share must be mostly link text (menus, related links). */
const MAY_DROP = 0.05;
const DROPPED_LINKS = 0.5;

interface TextMeasure {
  /** Characters of text, whitespace collapsed. */
  text: number;
  /** Of which inside links. */
  links: number;
}

function measure(root: { textContent: string | null; querySelectorAll(selector: string): Iterable<{ textContent: string | null }> }): TextMeasure {
  let links = 0;
  for (const a of root.querySelectorAll('a[href]')) links += clean(a.textContent).length;
  return { text: clean(root.textContent).length, links };
}

/**
 * Whether Readability's article is the page's content. It drops site chrome, but on a
 * page that is all content it can also drop a table or the prose around it (111 of the
 * 840 pages of the development set, decisions D-305). What chrome is left after `NOISE`
 * is mostly links; prose and tables are not. So the article is used when it keeps most of
 * the text, or when what it drops is mostly link text; else the whole page is.
 */
function articleKeepsContent(whole: TextMeasure, article: TextMeasure): boolean {
  if (article.text < MIN_KEPT * whole.text) return false;
  const dropped = whole.text - article.text;
  if (dropped <= MAY_DROP * whole.text) return true;
  return whole.links - article.links >= DROPPED_LINKS * dropped;
}

/**
 * The main content of an HTML page as Markdown, through a real HTML parser (linkedom)
 * and Mozilla's Readability: navigation, scripts, styles and site chrome are dropped.
 */
export async function extractHtml(html: string): Promise<HtmlText> {
  const [{ parseHTML }, { Readability }, td] = await Promise.all([import('linkedom'), import('@mozilla/readability'), loadTurndown()]);
  // linkedom reads a fragment (`<main>...</main>`, or a page whose optional <body> tag
  // was left out) without a body: give it one.
  const { document } = parseHTML(/<body[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`);
  const title =
    clean(document.querySelector('title')?.textContent) ||
    clean(document.querySelector('meta[property="og:title"]')?.getAttribute('content')) ||
    clean(document.querySelector('h1')?.textContent) ||
    undefined;
  for (const el of [...document.querySelectorAll(NOISE)]) el.remove();
  for (const el of [...document.querySelectorAll(CHROME)]) if (!el.parentElement?.closest('main, article')) el.remove();
  const body = document.body;
  if (!body) throw new IngestError('unsupported_document', 'no body');
  const whole = body.innerHTML;
  const wholeText = measure(body);

  let content = whole;
  try {
    const article = new Readability(document as never).parse();
    if (article?.content) {
      const kept = parseHTML(`<!doctype html><html><head></head><body>${article.content}</body></html>`).document.body;
      if (kept && articleKeepsContent(wholeText, measure(kept))) content = article.content;
    }
  } catch {
    content = whole;
  }
  const markdown = td
    .turndown(content)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { markdown, title: title?.slice(0, 300) };
}
