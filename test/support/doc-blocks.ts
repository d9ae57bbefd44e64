import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lexer, walkTokens, type Token, type Tokens } from 'marked';
import { packageRoot } from '../../emulator/package-info.js';

/** The user-facing Markdown: the README, every guide in docs/ and the decisions' area files (D-950). */
export function docFiles(): string[] {
  const markdownIn = (dir: string) =>
    readdirSync(join(packageRoot(), dir))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${dir}/${name}`);
  return ['README.md', ...markdownIn('docs'), ...markdownIn('docs/decisions')];
}

export const readDoc = (file: string) => readFileSync(join(packageRoot(), file), 'utf8');

/**
 * How a shell block is run. The marker is an HTML comment on the line before the fence:
 * `<!-- not run: <why> -->` skips it; `<!-- own emulator -->` means the block starts
 * emulators of its own, so its ports (4010, 4011...) are fresh ones, not the running
 * emulator's. Two more start PostgreSQL too: `<!-- own emulator, a PostgreSQL cluster
 * running -->` is a block written for a cluster a package runs (Debian's, on 5432,
 * administered with `sudo -u postgres`), and `<!-- own emulator, own PostgreSQL -->` one
 * that makes a cluster of its own with `initdb` and `pg_ctl` as an unprivileged user.
 */
export type BlockMode = { kind: 'run' } | { kind: 'own emulator'; postgres?: 'running' | 'own' } | { kind: 'not run'; reason: string };

export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  mode: BlockMode;
  /** The `# => ...` lines, in order. */
  expected: string[];
}

const EXPECT_MARK = '# => ';

function modeOf(previous: Token | undefined): BlockMode {
  const comment = previous?.type === 'html' ? previous.raw.trim() : '';
  if (comment.startsWith('<!-- not run:')) return { kind: 'not run', reason: comment.slice('<!-- not run:'.length, -'-->'.length).trim() };
  if (comment === '<!-- own emulator -->') return { kind: 'own emulator' };
  if (comment === '<!-- own emulator, a PostgreSQL cluster running -->') return { kind: 'own emulator', postgres: 'running' };
  if (comment === '<!-- own emulator, own PostgreSQL -->') return { kind: 'own emulator', postgres: 'own' };
  return { kind: 'run' };
}

/** Every ```sh block of a Markdown file (top level: the guides keep them there), with its marker and expected output. */
export function shellBlocks(file: string): ShellBlock[] {
  const markdown = readDoc(file);
  const tokens = lexer(markdown);
  const blocks: ShellBlock[] = [];
  let offset = 0;
  let previous: Token | undefined;
  for (const token of tokens) {
    if (token.type === 'code' && (token as Tokens.Code).lang === 'sh') {
      const code = (token as Tokens.Code).text;
      const line = markdown.slice(0, markdown.indexOf(token.raw, offset)).split('\n').length;
      const expected = code.split('\n').flatMap((l) => (l.includes(EXPECT_MARK) ? [l.slice(l.indexOf(EXPECT_MARK) + EXPECT_MARK.length).trim()] : []));
      blocks.push({ file, line, code, mode: modeOf(previous), expected });
    }
    offset += token.raw.length;
    if (token.type !== 'space') previous = token;
  }
  return blocks;
}

/** Whether `line` matches `pattern`, where each `...` stands for any text (plain string search, no regular expression). */
export function matchesLine(pattern: string, line: string): boolean {
  const parts = pattern.split('...');
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!line.startsWith(first)) return false;
  if (parts.length === 1) return line === first;
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = line.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return line.length - last.length >= at && line.endsWith(last);
}

/** The expected lines that the output does not show in order (empty when all are there); indentation is ignored. */
export function missingLines(expected: readonly string[], output: string): string[] {
  const lines = output.split('\n').map((l) => l.trim());
  let at = 0;
  for (const [i, pattern] of expected.entries()) {
    const found = lines.findIndex((l, n) => n >= at && matchesLine(pattern, l));
    if (found < 0) return expected.slice(i);
    at = found + 1;
  }
  return [];
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens; repeats get -1, -2... */
export function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  walkTokens(lexer(readDoc(file)), (token) => {
    if (token.type !== 'heading') return;
    const base = (token as Tokens.Heading).text
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  });
  return anchors;
}

/** Every link and image address of a Markdown file. */
export function linksOf(file: string): string[] {
  const links: string[] = [];
  walkTokens(lexer(readDoc(file)), (token) => {
    if (token.type === 'link' || token.type === 'image') links.push((token as Tokens.Link).href);
  });
  return links;
}
