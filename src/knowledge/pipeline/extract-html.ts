import { IngestError } from './ingest-error.js';

// Never content: code, embedded media, site chrome (these elements, and any with one of
// these roles, `aria-hidden="true"` or `hidden`); nor a header or footer outside a
// `<main>` or an `<article>`. Readability drops most of these itself; removing them
// first keeps a short page's chrome out of the fallback too.
const NOISE_TAGS = new Set([
  'head',
  'title',
  'meta',
  'link',
  'base',
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'canvas',
  'form',
  'nav',
  'aside',
]);
const NOISE_ROLES = new Set(['navigation', 'banner', 'contentinfo']);
const CHROME_TAGS = new Set(['header', 'footer']);
const CONTENT_TAGS = new Set(['main', 'article']);

export interface HtmlText {
  /** The main content as Markdown. */
  markdown: string;
  title: string | undefined;
}

type Turndown = import('turndown');
let turndown: Promise<Turndown> | undefined;
// Each module's import once per thread: an `import()` resolves its specifier again on
// every call, which costs more than a small page's parse.
let linkedom: Promise<typeof import('linkedom')> | undefined;
let readability: Promise<typeof import('@mozilla/readability')> | undefined;
const loadLinkedom = () => (linkedom ??= import('linkedom'));
const loadReadability = () => (readability ??= import('@mozilla/readability'));

/** What one of Turndown's Markdown escapes (`escapeMarkdown`, none with the `m` flag) could match. */
const MAY_ESCAPE = /[\\*`[\]_]|^[-+=#~>\d]/;

function loadTurndown(): Promise<Turndown> {
  turndown ??= import('turndown').then(({ default: TurndownService }) => {
    const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
    // Chunks are read for their words: keep link and image text, drop addresses.
    service.addRule('linkText', { filter: 'a', replacement: (content) => content });
    service.addRule('imageAlt', {
      filter: 'img',
      replacement: (_c, node) => ((node as { getAttribute(n: string): string | null }).getAttribute('alt') ?? '').trim(),
    });
    service.addRule('preformatted', { filter: 'pre', replacement: (_c, node) => fencedBlock(node as unknown as PreNode) });
    // Turndown escapes every text node with thirteen replacements in turn; a text none of
    // them can match (most: no \ * ` [ ] _ anywhere, nor - + = # ~ > or a digit first)
    // comes back as it is, without them.
    const escapeAll = service.escape.bind(service);
    service.escape = (text) => (MAY_ESCAPE.test(text) ? escapeAll(text) : text);
    return service;
  });
  return turndown;
}

interface PreNode {
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<PreNode>;
  getAttribute?(name: string): string | null;
  querySelector?(selector: string): PreNode | null;
}

/** The text of a `<pre>` as a browser shows it: every text node in order, a `<br>` a line break. */
function preText(node: PreNode): string {
  if (node.nodeName === '#text') return node.nodeValue ?? '';
  if (node.nodeName === 'BR') return '\n';
  let out = '';
  for (let i = 0; i < node.childNodes.length; i++) out += preText(node.childNodes[i]!);
  return out;
}

/** `sh` of `language-sh` on the `<pre>` or its first `<code>` (no backtick: it would end the info string). */
function codeLanguage(pre: PreNode): string {
  for (const el of [pre.querySelector?.('code'), pre]) {
    const match = /(?:^|\s)language-([^\s`]+)/.exec(el?.getAttribute?.('class') ?? '');
    if (match) return match[1]!;
  }
  return '';
}

/**
 * A `<pre>` as a fenced code block holding all its text (decisions, D-1010). Turndown's
 * own rule reads only a first `<code>` child: a DocBook screen (`<code>$ </code><strong>
 * <code>apt install foo</code></strong>`) kept the prompt and lost the command, and a
 * `<pre>` without `<code>` became a paragraph with its markup escaped and its lines
 * joined. The fence is longer than any run of backticks in the code, so none closes it.
 */
function fencedBlock(pre: PreNode): string {
  // The HTML standard drops a line break right after <pre>; linkedom keeps it.
  const code = preText(pre).replace(/^\n/, '').replace(/\n$/, '');
  if (!code.trim()) return '';
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `\n\n${fence}${codeLanguage(pre)}\n${code}\n${fence}\n\n`;
}

/** Loads the HTML reader's modules (parser, Turndown, Readability) ahead of a first page (D-1000). */
export async function loadHtmlReader(): Promise<void> {
  await Promise.all([loadLinkedom(), loadTurndown(), loadReadability()]);
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
 * 840 pages of the development set, decisions D-305). What chrome is left after
 * `stripPage` is mostly links; prose and tables are not. So the article is used when it
 * keeps most of the text, or when what it drops is mostly link text; else the whole page is.
 */
function articleKeepsContent(whole: TextMeasure, article: TextMeasure): boolean {
  if (article.text < MIN_KEPT * whole.text) return false;
  const dropped = whole.text - article.text;
  if (dropped <= MAY_DROP * whole.text) return true;
  return whole.links - article.links >= DROPPED_LINKS * dropped;
}

/**
 * Whether Readability may be asked at all. Under `articleKeepsContent` an article that
 * drops more than `MAY_DROP` of the text is used only when at least `DROPPED_LINKS` of
 * what it drops is link text; so on a page whose link text is at most `MAY_DROP *
 * DROPPED_LINKS` of its text (2.5%), the article is either refused or the whole page less
 * at most 5% of its text, none of it links: chrome is links, and such a page has next to
 * none. It is read whole without asking (decisions, D-982), which spares Readability's
 * passes, the most costly part of reading a page, on about a third of them.
 */
function mayHoldChrome(whole: TextMeasure): boolean {
  return whole.links > MAY_DROP * DROPPED_LINKS * whole.text;
}

type HtmlNode = import('turndown').Node;

interface StrippedNode {
  localName: string;
  firstElementChild: StrippedNode | null;
  nextElementSibling: StrippedNode | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  remove(): void;
}

/**
 * Removes from `root` what is never content (`NOISE_TAGS`, `NOISE_ROLES`, hidden) and
 * site chrome outside a `<main>` or an `<article>` (`CHROME_TAGS`), in one walk without
 * recursion; answers the `<main>` elements kept. Three selector queries did this, each a
 * walk of the whole page with a compiled selector run on every element: 7% of a page's
 * ingestion (D-1207). Tag names are compared lowercased and attribute values as written,
 * as the selectors compared them in an HTML document.
 */
function stripPage(root: StrippedNode): StrippedNode[] {
  const mains: StrippedNode[] = [];
  // Each level: the next child to look at, and whether a <main> or <article> holds it.
  const stack: { next: StrippedNode | null; inContent: boolean }[] = [{ next: root.firstElementChild, inContent: false }];
  while (stack.length) {
    const level = stack[stack.length - 1]!;
    const el = level.next;
    if (!el) {
      stack.pop();
      continue;
    }
    level.next = el.nextElementSibling;
    const name = el.localName.toLowerCase();
    const noise =
      NOISE_TAGS.has(name) || NOISE_ROLES.has(el.getAttribute('role') ?? '') || el.getAttribute('aria-hidden') === 'true' || el.hasAttribute('hidden');
    if (noise || (CHROME_TAGS.has(name) && !level.inContent)) {
      el.remove();
      continue;
    }
    if (name === 'main') mains.push(el);
    stack.push({ next: el.firstElementChild, inContent: level.inContent || CONTENT_TAGS.has(name) });
  }
  return mains;
}

/**
 * `element`, for Turndown to read in place. Turndown copies an element before it
 * collapses its white space (it must not change a caller's DOM); this page's DOM is ours
 * and read once, and the copy cost as much as parsing the page had (linkedom gives each
 * node, attribute and text a listener map). Turndown reads only the element's own subtree,
 * so the Markdown is the same (decisions, D-1050).
 */
function consumed(element: HtmlNode): HtmlNode {
  return Object.assign(element, { cloneNode: () => element });
}

// An attribute name written with a capital first, after white space (`<A HREF=...>`,
// HTML 3 and 4 pages). Linear: a run of letters is only tried from its first letter.
const UPPERCASE_ATTRIBUTE = /\s[A-Z][A-Za-z-]*\s*=/;

interface AttributeHolder {
  attributes: Iterable<{ name: string; value: string }>;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
}

/**
 * HTML attribute names are ASCII case-insensitive: a browser's parser lowercases them
 * (`HREF`, `CLASS`, `ALT`). linkedom keeps them as written, so `a[href]`, an image's
 * `alt` and Readability's class names would miss an older page's; lowercased here, the
 * first of two spellings kept, as a browser keeps it (D-1044).
 */
function lowercaseAttributes(document: { querySelectorAll(selector: string): Iterable<unknown> }): void {
  for (const node of document.querySelectorAll('*')) {
    const el = node as AttributeHolder;
    const attributes = [...el.attributes].map(({ name, value }) => ({ name, value }));
    if (attributes.every(({ name }) => name === name.toLowerCase())) continue;
    const first = new Map<string, string>();
    for (const { name, value } of attributes) {
      if (!first.has(name.toLowerCase())) first.set(name.toLowerCase(), value);
      el.removeAttribute(name);
    }
    for (const [name, value] of first) el.setAttribute(name, value);
  }
}

// A doctype at the start of a page (anchored, one pass: `[^>]*` stops at the first `>`).
const DOCTYPE = /^\s*<!doctype[^>]*>/i;

/**
 * `html` as linkedom reads a whole page. It reads a fragment (`<main>...</main>`, or a
 * page whose optional `<body>` tag was left out) without a body, so one is given; and a
 * page whose optional `<html>` tag was left out (`<!doctype html><head>...<body>...`) as
 * its head alone, dropping the body, so that tag is put back (D-1086).
 */
function asDocument(html: string): string {
  if (!/<body[\s>]/i.test(html)) return `<!doctype html><html><head></head><body>${html}</body></html>`;
  if (/<html[\s>]/i.test(html)) return html;
  return `<!doctype html><html>${html.replace(DOCTYPE, '')}</html>`;
}

/**
 * How deep elements may nest: the depth at which Blink's and WebKit's HTML parsers stop
 * nesting (512). Turndown and Readability read a tree recursively, and each element's
 * text again for each of its ancestors, so a page nested deeper costs time quadratic in
 * its depth before it overflows the stack (D-1199): it is refused as the stack overflow
 * was, before any of that work.
 */
const MAX_DEPTH = 512;

interface DepthNode {
  firstElementChild: DepthNode | null;
  nextElementSibling: DepthNode | null;
  parentElement: DepthNode | null;
}

/** Whether an element inside `root` is more than `limit` elements deep; a walk without recursion that stops there. */
function depthOver(root: DepthNode, limit: number): boolean {
  let node = root.firstElementChild;
  let depth = 1;
  while (node) {
    if (depth > limit) return true;
    if (node.firstElementChild) {
      node = node.firstElementChild;
      depth += 1;
      continue;
    }
    while (node && node !== root && !node.nextElementSibling) {
      node = node.parentElement;
      depth -= 1;
    }
    node = node && node !== root ? node.nextElementSibling : null;
  }
  return false;
}

type ContentElement = HtmlNode & {
  normalize(): void;
  textContent: string | null;
  querySelectorAll(selector: string): Iterable<{ textContent: string | null }>;
};

interface Page {
  document: { querySelector(selector: string): ContentElement | null; querySelectorAll(selector: string): Iterable<unknown> };
  body: ContentElement;
}

/**
 * `html` read by linkedom, its attribute names lowercased, without what is never content
 * nor site chrome outside a `<main>` or an `<article>` (`stripPage`). The HTML
 * standard's input stream turns every CR LF and lone CR into LF before the parser sees
 * it (a browser's DOM never holds a CR); linkedom's parser does not, so that is done first
 * (D-1199). `title`: the page's title, read before `<head>` goes.
 */
async function readPage(html: string): Promise<Page & { title: string | undefined; main: ContentElement | undefined }> {
  const { parseHTML } = await loadLinkedom();
  const { document } = parseHTML(asDocument(html.replace(/\r\n?/g, '\n')));
  if (UPPERCASE_ATTRIBUTE.test(html)) lowercaseAttributes(document);
  const title =
    clean(document.querySelector('title')?.textContent) ||
    clean(document.querySelector('meta[property="og:title"]')?.getAttribute('content')) ||
    clean(document.querySelector('h1')?.textContent) ||
    undefined;
  const mains = stripPage(document as unknown as StrippedNode);
  const body = document.body as unknown as (ContentElement & DepthNode) | null;
  if (!body) throw new IngestError('unsupported_document', 'no body');
  if (depthOver(body, MAX_DEPTH)) throw new IngestError('unsupported_document', `elements nested more than ${MAX_DEPTH} deep`);
  // The page's one `<main>`, if it has exactly one: the HTML standard's "dominant contents
  // of the body", marked by the author, read whole without Readability (D-890).
  const main = mains.length === 1 ? (mains[0] as unknown as ContentElement) : undefined;
  return { document: document as unknown as Page['document'], body, title, main };
}

/**
 * The main content of an HTML page as Markdown, through a real HTML parser (linkedom):
 * navigation, scripts, styles and site chrome are dropped. A page that marks its main
 * content with one `<main>` is read from there; any other page with link text enough to
 * be chrome goes through Mozilla's Readability, whose article is kept when it keeps the
 * content (D-305, D-890, D-982). Turndown reads the content's element where it stands,
 * never a serialisation of it parsed again by another parser (D-1050, D-1199).
 */
export async function extractHtml(html: string): Promise<HtmlText> {
  const [page, td] = await Promise.all([readPage(html), loadTurndown()]);
  const content = page.main ?? (await readableContent(html, page));
  // linkedom leaves a text split at each character reference, which Turndown would
  // escape piece by piece: joined first.
  content.normalize();
  // No blank lines collapsed after Turndown: it joins blocks with one blank line at
  // most already, and a code block's own are its text (D-1010).
  const markdown = td.turndown(consumed(content)).trim();
  return { markdown, title: page.title?.slice(0, 300) };
}

/**
 * The element holding a page without a marked main content: Readability's article when
 * it keeps the content (D-305), else the whole body; a page with next to no link text is
 * read whole without asking (D-982). Readability takes the document apart as it reads
 * it, so the page of a refused article is parsed again (D-1199): no copy is kept
 * beforehand for the pages whose article is used (linkedom's copy costs what its parse
 * does, D-1050), and the parse costs less than the serialising and second parser it
 * replaces.
 */
async function readableContent(html: string, page: Page): Promise<ContentElement> {
  const wholeText = measure(page.body);
  if (!mayHoldChrome(wholeText)) return page.body;
  const { Readability } = await loadReadability();
  try {
    const article = new Readability<ContentElement>(page.document as never, { serializer: (el) => el as never }).parse();
    const kept = article?.content;
    if (kept && articleKeepsContent(wholeText, measure(kept))) return kept;
  } catch {
    // Readability gave up on the page: the whole of it is the content.
  }
  return (await readPage(html)).body;
}
