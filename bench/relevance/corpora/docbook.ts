/**
 * One document per DocBook section of an HTML page (the DocBook XSL and Publican
 * outputs Debian ships: `div.chapter`, `div.appendix`, `div.section`, each headed by a
 * `div.titlepage` whose heading holds an anchor), as the FAQ, the Securing Debian Manual
 * and the kernel handbook are cut. Parsed by linkedom; nothing here ranks.
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
    const text = squash(own.map((c) => c.textContent).join(' '));
    if (children.some(isSection) && text.length < MIN_PARENT_TEXT) continue;
    const title = squash(heading.textContent);
    const level = heading.tagName.slice(1);
    const body = `<h${level}>${escapeHtml(title)}</h${level}>\n${own.map((c) => c.outerHTML).join('\n')}`;
    const section = `${name}#${anchor}`;
    docs.push({
      key: `${section}@en`,
      section,
      lang: 'en',
      title,
      html: page(title, 'en', body),
      text: `${title} ${text}`,
      filename: `${name}.${anchor}.html`,
    });
  }
  return docs;
}
