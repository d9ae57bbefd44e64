import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFixture } from '../fixtures.js';
import { packageRoot } from '../package-info.js';

/** Sections of the package's documentation read ahead at most (D-1220), besides the demo's texts. */
const DOC_SECTIONS = 64;
/** A section past this many characters is cut: one rehearsal must not hold up a document that arrives meanwhile. */
const SECTION_CHARS = 6_000;

/**
 * What the CLI's ingestion threads read before the first document (D-1220): sections of
 * the package's own guides (`docs/*.md`, cut at their second- and third-level headings,
 * spread over every guide) and the demo fixture's knowledge texts, English and Spanish
 * (read whatever `--fixtures` says: they are the package's files, not the workspace's).
 * Real prose with headings, lists, tables and code, as uploads have; the same on every
 * start. A package without them rehearses with what it has.
 */
export function rehearsalTexts(): string[] {
  const sections: string[] = [];
  let root = '';
  let files: string[] = [];
  try {
    root = packageRoot();
    files = readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort();
  } catch {
    // No guides in this copy of the package.
  }
  for (const file of files) {
    const text = readFileSync(join(root, 'docs', file), 'utf8');
    for (const section of text.split(/\n(?=#{2,3} )/u)) if (section.trim().length >= 400) sections.push(section.slice(0, SECTION_CHARS));
  }
  const step = Math.max(1, Math.ceil(sections.length / DOC_SECTIONS));
  const docs = sections.filter((_, i) => i % step === 0);
  let demo: string[] = [];
  try {
    demo = readFixture('demo').workspaces.flatMap((w) => w.knowledge.flatMap((k) => (k.kind === 'text' && typeof k.text === 'string' ? [k.text] : [])));
  } catch {
    // No demo fixture in this copy of the package.
  }
  // The demo's texts spread among the guides, so that each thread meets some Spanish.
  const out: string[] = [];
  const every = Math.max(1, Math.floor(docs.length / Math.max(1, demo.length)));
  docs.forEach((d, i) => {
    out.push(d);
    if (i % every === 0 && demo.length) out.push(demo.shift()!);
  });
  return [...out, ...demo];
}
