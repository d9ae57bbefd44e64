/** An opening code fence (CommonMark: up to three spaces, then three or more backticks or tildes). */
const OPENING = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** A line of a fenced code block: one of its fences, or a line of its code. */
export type CodeLine = 'fence' | 'code' | undefined;

/**
 * Which lines of a Markdown text belong to a fenced code block, and which of them are
 * its fences (decisions, D-1012): a `# apt update` there is a root prompt, not a heading, and a
 * `*` or `_` is the command's own. CommonMark's fence rule: a backtick fence's info
 * string holds no backtick, a block ends at a fence of the same character at least as
 * long with nothing after it, or with the text. One pass, no backtracking.
 */
export function codeLines(lines: readonly string[]): CodeLine[] {
  const out: CodeLine[] = [];
  let fence: string | undefined;
  for (const line of lines) {
    const match = OPENING.exec(line);
    if (fence === undefined) {
      if (match && !(match[1]![0] === '`' && match[2]!.includes('`'))) fence = match[1];
      out.push(fence === undefined ? undefined : 'fence');
      continue;
    }
    const closes = match && match[1]![0] === fence[0] && match[1]!.length >= fence.length && !match[2]!.trim();
    if (closes) fence = undefined;
    out.push(closes ? 'fence' : 'code');
  }
  return out;
}

/** A Markdown heading line's marks (`## `): what a heading line starts with, and what its text is without. */
export const HEADING_MARKS = /^\s{0,3}#{1,6}\s+/;
const FENCE_MARK = /`{3}|~{3}/;

/**
 * Which of `text`'s lines (`lines`, its lines) are heading lines: a `#` line outside
 * fenced code. In a code block it is a root prompt or a comment (`# apt update`,
 * `# list the files`), which a line-by-line reading took for a heading (D-1046). A text
 * without a fence mark is read without looking for blocks.
 */
export function headingLines(lines: readonly string[], text: string): boolean[] {
  const code = FENCE_MARK.test(text) ? codeLines(lines) : undefined;
  return lines.map((line, i) => !code?.[i] && HEADING_MARKS.test(line));
}
