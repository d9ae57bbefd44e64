import { LIMIT_FAILURES } from '../../platform/ingest-failures.js';
import { IngestError, MAX_TEXT_CHARS } from './ingest-error.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Leaf {
  path: string;
  group: string;
  text: string;
}

interface Walk {
  out: Leaf[];
  /** Characters of the lines so far: past `MAX_TEXT_CHARS` the document is too much text. */
  size: number;
}

/**
 * The leaves of `value` under `path`. `top` is the path's first segment (a top-level
 * section), handed down rather than split out of the path again: a leaf 3,000 keys deep
 * would split a path of 300,000 characters (D-1086). The lines are counted as they are
 * found, so a small document whose paths repeat its keys at every depth stops at the
 * text limit instead of growing to gigabytes of paths.
 */
function walk(value: Json, path: string, group: string | undefined, top: string, depth: number, state: Walk): void {
  if (value === null || typeof value !== 'object') {
    const text = String(value).replace(/\s+/g, ' ').trim();
    if (!text) return;
    const at = path || 'value';
    state.size += at.length + text.length + 2;
    if (state.size > MAX_TEXT_CHARS) throw new IngestError(LIMIT_FAILURES.tooMuchText, `more than ${MAX_TEXT_CHARS} characters`);
    // Top-level scalars read together; anything nested reads with its list item or section.
    state.out.push({ path: at, group: group ?? (depth > 1 ? top : ''), text });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      const p = `${path}[${i}]`;
      walk(item, p, group ?? p, depth === 0 ? '' : top, depth + 1, state);
    });
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    // A top-level key's first segment names its section, as its path's would.
    walk(item, path ? `${path}.${key}` : key, group, depth === 0 ? key.split(/[.[]/)[0]! : top, depth + 1, state);
  }
}

/**
 * A JSON document as text: one `path: value` line per leaf (`faq[0].question: ...`);
 * the leaves of one list item, or of one top-level section, form one paragraph. More
 * text than `MAX_TEXT_CHARS` fails with `unsupported_document:too_much_text`.
 */
export function extractJson(text: string): string {
  const state: Walk = { out: [], size: 0 };
  walk(JSON.parse(text) as Json, '', undefined, '', 0, state);
  const paragraphs: string[][] = [];
  let current: string | undefined;
  for (const leaf of state.out) {
    if (leaf.group !== current) {
      paragraphs.push([]);
      current = leaf.group;
    }
    paragraphs[paragraphs.length - 1]!.push(`${leaf.path}: ${leaf.text}`);
  }
  return paragraphs.map((p) => p.join('\n')).join('\n\n');
}
