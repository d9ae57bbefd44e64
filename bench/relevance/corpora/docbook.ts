/**
 * One document per DocBook section of an HTML page (the DocBook XSL and Publican
 * outputs Debian ships: `div.chapter`, `div.appendix`, `div.section`, each headed by a
 * `div.titlepage` whose heading holds an anchor), as the FAQ, the Securing Debian Manual
 * and the kernel handbook are cut; and the older output of the Modular DocBook (DSSSL)
 * stylesheet (`DIV CLASS="SECT1"`, its heading a direct child), as the Advanced
 * Bash-Scripting Guide is. Parsed by linkedom; nothing here ranks.
 */
import { parseHTML } from 'linkedom';
import { escapeHtml, page, squash, type BlindDocument } from './shared.js';

/** As in `../corpus.ts`: a parent section with less own text than this says nothing of its own. */
const MIN_PARENT_TEXT = 150;

type Element = ReturnType<typeof parseHTML>['document']['body'];
const SECTION_CLASSES = ['section', 'chapter', 'appendix'];
const SKIP_CLASSES = ['titlepage', 'toc', 'footnotes', 'navheader', 'navfooter'];
const isSection = (el: Element): boolean => SECTION_CLASSES.some((c) => el.classList.contains(c));

/**
 * The sections of one English page `name` (the file name without `.html`): its heading
 * and own content (not its subsections, tables of contents, footnotes or navigation),
 * key `<name>#<anchor>@en`, uploaded as `<name>.<anchor>.html` with the heading as its
 * `<title>`. A section whose own text is under 150 characters and that has subsections
 * gets none. Throws on a section without a heading anchor (`id` or, in older DocBook
 * XSL, `name`).
 */
export function docbookSections(name: string, html: string): BlindDocument[] {
  const { document } = parseHTML(html);
  const docs: BlindDocument[] = [];
  for (const el of document.querySelectorAll(SECTION_CLASSES.map((c) => `div.${c}`).join(', ')) as Iterable<Element>) {
    const children = [...el.children] as Element[];
    const heading = children.find((c) => c.classList.contains('titlepage'))?.querySelector('h1, h2, h3, h4, h5, h6');
    const anchorEl = heading?.querySelector('a[id], a[name]');
    const anchor = anchorEl?.getAttribute('id') ?? anchorEl?.getAttribute('name');
    if (!heading || !anchor) throw new Error(`${name}: a section without a heading anchor`);
    const own = children.filter((c) => !isSection(c) && !SKIP_CLASSES.some((s) => c.classList.contains(s)));
    const doc = sectionDocument(name, anchor, heading, own, children.some(isSection));
    if (doc) docs.push(doc);
  }
  return docs;
}

/**
 * The document of one section: its heading and `own` content, key `<name>#<anchor>@en`,
 * file `<name>.<anchor>.html`; none for a parent (`parent`) with under 150 characters
 * of own text.
 */
function sectionDocument(name: string, anchor: string, heading: Element, own: Element[], parent: boolean): BlindDocument | undefined {
  const text = squash(own.map((c) => c.textContent).join(' '));
  if (parent && text.length < MIN_PARENT_TEXT) return undefined;
  const title = squash(heading.textContent);
  const level = heading.tagName.slice(1);
  const body = `<h${level}>${escapeHtml(title)}</h${level}>\n${own.map((c) => c.outerHTML).join('\n')}`;
  const section = `${name}#${anchor}`;
  return {
    key: `${section}@en`,
    section,
    lang: 'en',
    title,
    html: page(title, 'en', body),
    text: `${title} ${text}`,
    filename: `${name}.${anchor}.html`,
  };
}

/** The Modular DocBook (DSSSL) stylesheet's section classes, upper case as it writes them. */
const DSSSL_SECTION_CLASSES = ['CHAPTER', 'APPENDIX', 'PREFACE', 'SECT1', 'SECT2', 'SECT3', 'SECT4', 'SECT5'];
/** Left out of a section's own text: navigation, tables of contents, footnotes, and a chapter's epigraph (a quotation, not its subject). */
const DSSSL_SKIP_CLASSES = ['TOC', 'FOOTNOTES', 'NAVHEADER', 'NAVFOOTER', 'EPIGRAPH'];
/** Its classes, upper case: linkedom keeps the stylesheet's `CLASS=` attribute name as written, so `classList` misses it. */
const dssslClasses = (el: Element): string[] => (el.getAttribute('CLASS') ?? el.getAttribute('class') ?? '').toUpperCase().split(/\s+/);
const isDssslSection = (el: Element): boolean => el.tagName === 'DIV' && DSSSL_SECTION_CLASSES.some((c) => dssslClasses(el).includes(c));
const HEADING = /^H[1-6]$/;

/**
 * The sections of one English page `name` written by the Modular DocBook (DSSSL)
 * stylesheet: the same documents as `docbookSections` (heading and own content, key
 * `<name>#<anchor>@en`, file `<name>.<anchor>.html`, a parent under 150 characters of
 * own text skipped), where a section is a `DIV` of class `CHAPTER`, `APPENDIX`,
 * `PREFACE` or `SECT1` to `SECT5`, headed by its first child `H1` to `H6` holding an
 * `<A NAME>`. Throws on a section without one.
 */
export function dssslSections(name: string, html: string): BlindDocument[] {
  const { document } = parseHTML(html);
  const docs: BlindDocument[] = [];
  for (const el of document.querySelectorAll('div') as Iterable<Element>) {
    if (!isDssslSection(el)) continue;
    const children = [...el.children] as Element[];
    const heading = children.find((c) => HEADING.test(c.tagName));
    const anchor =
      heading && [...heading.querySelectorAll('a')].map((a) => a.getAttribute('NAME') ?? a.getAttribute('name') ?? a.getAttribute('id')).find(Boolean);
    if (!heading || !anchor) throw new Error(`${name}: a section without a heading anchor`);
    const own = children.filter((c) => c !== heading && !isDssslSection(c) && !DSSSL_SKIP_CLASSES.some((s) => dssslClasses(c).includes(s)));
    const doc = sectionDocument(name, anchor, heading, own, children.some(isDssslSection));
    if (doc) docs.push(doc);
  }
  return docs;
}
