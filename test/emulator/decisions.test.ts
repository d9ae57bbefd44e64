import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../emulator/package-info.js';

// The decisions are one file per area with an index (decisions, D-950): every id is in
// exactly one file, the index sends a reader to that file, and an id the code cites
// or a "superseded by" names is one that exists.

const root = packageRoot();
const dir = join(root, 'docs', 'decisions');
const areaFiles = readdirSync(dir).filter((name) => name.endsWith('.md') && name !== 'README.md');
const ITEM = /^- (D-\d{3,}) · /gm;
const num = (id: string) => Number(id.slice(2));

const where = new Map<string, string[]>();
for (const file of areaFiles) for (const [, id] of readFileSync(join(dir, file), 'utf8').matchAll(ITEM)) where.set(id!, [...(where.get(id!) ?? []), file]);

function* sourceFiles(path: string): Generator<string> {
  for (const name of readdirSync(path)) {
    const child = join(path, name);
    if (statSync(child).isDirectory()) yield* sourceFiles(child);
    else if (/\.(ts|mjs|js)$/.test(name)) yield child;
  }
}

describe('docs/decisions', () => {
  it('holds every decision in exactly one area file', () => {
    expect(where.size).toBeGreaterThan(250);
    const twice = [...where].filter(([, files]) => files.length > 1);
    expect(twice).toEqual([]);
  });

  it('indexes every decision with the file that holds it', () => {
    const index = readFileSync(join(dir, 'README.md'), 'utf8');
    const rows = [...index.matchAll(/^\| (D-\d+)(?:(?:, | to )(D-\d+))? \| \[[^\]]*\]\(([^)#]+)\)/gm)].map(([, from, to, file]) => ({
      from: num(from!),
      to: num(to ?? from!),
      file: file!,
    }));
    const missing = [...where].filter(([id, [file]]) => !rows.some((r) => r.file === file && num(id) >= r.from && num(id) <= r.to)).map(([id]) => id);
    expect(missing, 'ids without a row of the index naming their file').toEqual([]);
  });

  it("gives each area's count of decisions as its file holds them", () => {
    const index = readFileSync(join(dir, 'README.md'), 'utf8');
    const areas = index.slice(index.indexOf('## Areas'), index.indexOf('\n## ', index.indexOf('## Areas') + 1));
    const rows = [...areas.matchAll(/^\| \[[^\]]+\]\(([a-z-]+\.md)\) \| (.*)$/gm)].map(([, file, rest]) => ({ file: file!, cells: rest!.split(' | ') }));
    expect(rows.map((r) => r.file).sort()).toEqual([...areaFiles].sort());
    for (const { file, cells } of rows) {
      const held = [...readFileSync(join(dir, file), 'utf8').matchAll(ITEM)].length;
      expect(cells, `${file}: a description and a count`).toHaveLength(2);
      expect(cells[1], file).toBe(`${held} |`);
    }
  });

  it('names only decisions that exist, in the code and in superseded marks', () => {
    const cited = new Set<string>();
    for (const folder of ['src', 'emulator', 'test', 'scripts'])
      for (const file of sourceFiles(join(root, folder))) for (const [id] of readFileSync(file, 'utf8').matchAll(/\bD-\d{3}\b/g)) cited.add(id);
    for (const file of areaFiles)
      for (const [, list] of readFileSync(join(dir, file), 'utf8').matchAll(/\*\*(?:Partly s|S)uperseded by ([^*]+)\*\*/g))
        for (const [id] of list!.matchAll(/D-\d{3}/g)) cited.add(id);
    expect([...cited].filter((id) => !where.has(id)).sort()).toEqual([]);
  });
});
