import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';

/** Where Debian installs the HTML of `debian-reference-en` and `debian-reference-es`. */
export const CORPUS_DIR = '/usr/share/debian-reference';

export const CHAPTERS = ['pr01', 'ch01', 'ch02', 'ch03', 'ch04', 'ch05', 'ch06', 'ch07', 'ch08', 'ch09', 'ch10', 'ch11', 'ch12', 'apa'] as const;

/**
 * Chapters whose English original is left out: their sections exist only in Spanish,
 * as a knowledge base holds documents written in one language only. English questions
 * about them are answered by Spanish text. Both are almost wholly translated.
 */
export const SPANISH_ONLY_CHAPTERS: readonly string[] = ['ch04', 'ch11'];

/**
 * A section keeps its own document when its own text (without its subsections) is at
 * least this long, or when it has no subsections: a parent whose text is one line
 * ("Here are a few examples of aptitude operations.") says nothing of its own.
 */
const MIN_PARENT_TEXT = 150;

/** How much of a Spanish section's prose is still the English original. */
export type Translation = 'full' | 'partial' | 'none';

export interface CorpusDocument {
  /** `ch03#_the_hostname@es`: the section key and the language of the file it came from. */
  key: string;
  /** `ch03#_the_hostname`: the same in both languages (DocBook anchors are not translated). */
  section: string;
  lang: 'en' | 'es';
  /** The heading as printed, `3.2.1. El nombre del equipo (hostname)`. */
  title: string;
  /** A standalone HTML page: the heading and the section's own content. */
  html: string;
  /** Its visible text, for the labelling tools and the no-answer checks. */
  text: string;
  /** Spanish documents only: `none` when the prose is still English (share >= 0.9). */
  translation?: Translation;
  /** Spanish documents only: share of the prose (by characters) identical to the English original. */
  englishShare?: number;
}

interface RawSection {
  section: string;
  title: string;
  html: string;
  text: string;
  /** Prose blocks (paragraphs, list items) of its own content, for the translation check. */
  prose: string[];
  hasChildren: boolean;
}

type Element = ReturnType<typeof parseHTML>['document']['body'];

const SECTION_CLASSES = ['section', 'chapter', 'preface', 'appendix'];
const SKIP_CLASSES = ['titlepage', 'toc', 'footnotes'];

const isSection = (el: Element): boolean => SECTION_CLASSES.some((c) => el.classList.contains(c));
const squash = (s: string | null | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();

function ownChildren(section: Element): Element[] {
  return ([...section.children] as Element[]).filter((el) => !isSection(el) && !SKIP_CLASSES.some((c) => el.classList.contains(c)));
}

function proseOf(nodes: Element[]): string[] {
  const out: string[] = [];
  const walk = (el: Element): void => {
    const tag = el.tagName;
    if (tag === 'PRE' || tag === 'TABLE') return;
    if (tag === 'P' || (tag === 'LI' && !el.querySelector('p'))) {
      const text = squash(el.textContent);
      // Prose, not a lone command or package name.
      if (/\p{L}{3}.*\s\p{L}{3}/u.test(text)) out.push(text);
      return;
    }
    for (const child of el.children) walk(child as Element);
  };
  nodes.forEach(walk);
  return out;
}

function readChapter(file: string): RawSection[] {
  const { document } = parseHTML(readFileSync(file, 'utf8'));
  const out: RawSection[] = [];
  for (const el of document.querySelectorAll(SECTION_CLASSES.map((c) => `div.${c}`).join(', ')) as Iterable<Element>) {
    const titlepage = ([...el.children] as Element[]).find((c) => c.classList.contains('titlepage'));
    const heading = titlepage?.querySelector('h1, h2, h3, h4, h5, h6');
    const anchor = heading?.querySelector('a[id]')?.getAttribute('id');
    if (!heading || !anchor) throw new Error(`${file}: a section without a heading anchor`);
    const own = ownChildren(el);
    const title = squash(heading.textContent);
    const tag = heading.tagName.toLowerCase();
    const body = own.map((c) => c.outerHTML).join('\n');
    out.push({
      section: anchor,
      title,
      html: `<h${tag.slice(1)}>${escapeHtml(title)}</h${tag.slice(1)}>\n${body}`,
      text: squash(own.map((c) => c.textContent).join(' ')),
      prose: proseOf(own),
      hasChildren: ([...el.children] as Element[]).some(isSection),
    });
  }
  return out;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function page(title: string, lang: string, body: string): string {
  return `<!DOCTYPE html>\n<html lang="${lang}">\n<head><meta charset="utf-8"/><title>${escapeHtml(title)}</title></head>\n<body><main>\n${body}\n</main></body>\n</html>\n`;
}

/** True when both language files of the reference are installed. */
export function corpusInstalled(): boolean {
  return CHAPTERS.every((c) => existsSync(join(CORPUS_DIR, `${c}.en.html`)) && existsSync(join(CORPUS_DIR, `${c}.es.html`)));
}

export const INSTALL_HINT =
  `the Debian Reference is not installed under ${CORPUS_DIR}; install it with\n` +
  '  apt-get install -y debian-reference-en debian-reference-es\n' +
  '(Debian and Ubuntu; any machine with those two packages runs this benchmark)';

/**
 * The development corpus: every section of the Debian Reference in English and Spanish,
 * one document per section (its own text, without its subsections), less the English
 * originals of `SPANISH_ONLY_CHAPTERS`. Sorted by key: the same list every run.
 */
export function loadCorpus(dir: string = CORPUS_DIR): CorpusDocument[] {
  const docs: CorpusDocument[] = [];
  for (const chapter of CHAPTERS) {
    const en = readChapter(join(dir, `${chapter}.en.html`));
    const es = new Map(readChapter(join(dir, `${chapter}.es.html`)).map((s) => [s.section, s]));
    for (const original of en) {
      const translated = es.get(original.section);
      if (!translated) throw new Error(`${chapter}: section ${original.section} has no Spanish file counterpart`);
      if (original.hasChildren && original.text.length < MIN_PARENT_TEXT) continue;
      const section = `${chapter}#${original.section}`;
      const englishProse = new Set(original.prose);
      const total = translated.prose.reduce((n, p) => n + p.length, 0);
      const same = translated.prose.filter((p) => englishProse.has(p)).reduce((n, p) => n + p.length, 0);
      const englishShare = total ? same / total : 0;
      const translation: Translation = englishShare >= 0.9 ? 'none' : englishShare <= 0.1 ? 'full' : 'partial';
      if (!SPANISH_ONLY_CHAPTERS.includes(chapter)) {
        docs.push({ key: `${section}@en`, section, lang: 'en', title: original.title, html: page(original.title, 'en', original.html), text: original.text });
      }
      docs.push({
        key: `${section}@es`,
        section,
        lang: 'es',
        title: translated.title,
        html: page(translated.title, 'es', translated.html),
        text: translated.text,
        translation,
        englishShare,
      });
    }
  }
  return docs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The held-out set's shape (issue 25): 529 documents, 281 English and 248 Spanish, about
 * 3.6 MB of HTML. From the Debian Reference as `bench/relevance` splits it (one page per
 * section), the 281 largest English and the 248 largest Spanish pages (3.5 MB), in key order.
 */
export function heldOutShape(all: CorpusDocument[]): CorpusDocument[] {
  const largest = (lang: string, n: number) =>
    all
      .filter((d) => d.lang === lang)
      .sort((a, b) => b.html.length - a.html.length || (a.key < b.key ? -1 : 1))
      .slice(0, n);
  return [...largest('en', 281), ...largest('es', 248)].sort((a, b) => (a.key < b.key ? -1 : 1));
}
