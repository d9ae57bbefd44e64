import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';

/** One compile error, where it is. */
export interface Diagnostic {
  file: string;
  line: number;
  code: string;
}

const MARKER = /^\s*\/\/ @ts-expect-error(?: (TS\d+) )?/;

/**
 * The `@ts-expect-error` markers of a type test, each naming the error it stands for
 * (`// @ts-expect-error TS2353 why`): the line after it must fail with that code.
 */
export function markedErrors(source: string, name: string): { line: number; code: string }[] {
  return source.split('\n').flatMap((text, i) => {
    const marker = MARKER.exec(text);
    if (!marker) return [];
    if (!marker[1]) throw new Error(`${name}:${i + 1}: name the error a @ts-expect-error stands for`);
    return [{ line: i + 2, code: marker[1] }];
  });
}

/** The same source with its markers turned into plain comments, line for line. */
export function withoutMarkers(source: string): string {
  return source.replace(/^(\s*)\/\/ @ts-expect-error/gm, '$1// was refused:');
}

/** Runs `tsc -p <tsconfig>` with the given TypeScript and answers every error. */
export async function compile(tsc: string, tsconfig: string, cwd: string): Promise<Diagnostic[]> {
  const result = await promisify(execFile)(process.execPath, [tsc, '-p', tsconfig, '--pretty', 'false'], { cwd, maxBuffer: 64 * 1024 * 1024 })
    .catch((error: { stdout: string }) => error);
  return result.stdout
    .split('\n')
    .map((line) => /^(.+?)\((\d+),\d+\): error (TS\d+):/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ file: m[1]!, line: Number(m[2]), code: m[3]! }));
}

/**
 * The file as written compiles with no error (an unused `@ts-expect-error` is one,
 * TS2578); its copy without markers fails on exactly the marked lines, each with the
 * code its marker names.
 */
export function expectMarkedErrors(errors: Diagnostic[], files: { written: string; loose: string }, expected: { line: number; code: string }[]): void {
  const outputs = (name: string) => errors.filter((e) => e.file.endsWith(name));
  expect(outputs(files.written)).toEqual([]);
  const loose = outputs(files.loose);
  expect([...new Set(loose.map((e) => e.line))].sort((a, b) => a - b), JSON.stringify(loose)).toEqual(expected.map((e) => e.line));
  for (const { line, code } of expected) expect(loose.filter((e) => e.line === line).map((e) => e.code), `line ${line}`).toContain(code);
}
