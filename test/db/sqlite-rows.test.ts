import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/db/dialects/sqlite/sqlite-backend.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BACKEND = pathToFileURL(join(ROOT, 'src/db/dialects/sqlite/sqlite-backend.ts')).href;

/**
 * The SQLite store reads rows as arrays and makes the objects itself (D-1141, D-1144):
 * what kysely gets must be what better-sqlite3 would have made, key for key, in order.
 */
describe('rows read from SQLite', () => {
  const backend = openSqlite();
  const db = new Kysely<Record<string, Record<string, unknown>>>({ dialect: backend.kysely });
  afterAll(() => db.destroy());

  // Column names a row's keys must keep exactly: quotes, a backslash, a line separator,
  // a digit-only name (ordered first by JavaScript, as better-sqlite3's rows are), names
  // of Object.prototype's members, and one name twice (the later value wins).
  const columns = [
    `1 AS "id"`,
    `'text' AS "title"`,
    `2.5 AS "score"`,
    `NULL AS "error"`,
    `x'00ff' AS "bytes"`,
    `'q' AS "it""s"`,
    `'b' AS "back\\slash"`,
    `'sep' AS "line\u2028sep"`,
    `'digit' AS "7"`,
    `'c' AS "constructor"`,
    `'first' AS "twice"`,
    `'second' AS "twice"`,
  ];

  async function ours(select: string): Promise<Record<string, unknown>[]> {
    return (await sql.raw<Record<string, unknown>>(select).execute(db)).rows;
  }

  function theirs(select: string): Record<string, unknown>[] {
    const sqlite = new BetterSqlite3(':memory:');
    try {
      return sqlite.prepare(select).all() as Record<string, unknown>[];
    } finally {
      sqlite.close();
    }
  }

  it('are the objects better-sqlite3 makes: the same keys in the same order, the same values', async () => {
    const select = `SELECT ${columns.join(', ')} UNION ALL SELECT ${columns.join(', ').replace(`1 AS "id"`, `2 AS "id"`)}`;
    const rows = await ours(select);
    const expected = theirs(select);
    expect(rows).toHaveLength(2);
    for (const [i, row] of rows.entries()) {
      expect(Object.keys(row)).toEqual(Object.keys(expected[i]!));
      expect(row).toEqual(expected[i]);
      expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    }
    expect(rows[1]).toMatchObject({ id: 2, twice: 'second', 'it"s': 'q', '7': 'digit', 'line\u2028sep': 'sep' });
    expect(Buffer.from(rows[0]!.bytes as Uint8Array).toString('hex')).toBe('00ff');
  });

  it('read a column named __proto__ as an own property, never as the prototype, blobs included (D-1227)', async () => {
    // better-sqlite3 itself does so on Node 22; on Node 20 it drops a number there and makes a blob the row's prototype.
    const [number] = await ours(`SELECT 1 AS "__proto__", 'x' AS "name"`);
    const [blob] = await ours(`SELECT x'00ff' AS "__proto__", 'x' AS "name", 'again' AS "__proto__"`);
    for (const row of [number!, blob!]) {
      expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
      expect(Object.keys(row)).toEqual(['__proto__', 'name']);
      expect(Object.getOwnPropertyDescriptor(row, '__proto__')).toMatchObject({ enumerable: true, writable: true, configurable: true });
    }
    expect(Object.getOwnPropertyDescriptor(number, '__proto__')!.value).toBe(1);
    // The later of two columns of one name wins, in the first one's place, as for any name.
    expect(Object.getOwnPropertyDescriptor(blob, '__proto__')!.value).toBe('again');
    const [first] = await ours(`SELECT x'00ff' AS "__proto__"`);
    expect(Buffer.from(Object.getOwnPropertyDescriptor(first, '__proto__')!.value as Uint8Array).toString('hex')).toBe('00ff');
  });

  it('make the same rows in a process that refuses code made from strings (the loop instead of the literal)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-rows-'));
    try {
      const script = join(dir, 'rows.mjs');
      writeFileSync(
        script,
        `const { Kysely, sql } = await import(${JSON.stringify(import.meta.resolve('kysely'))});
const { openSqlite } = await import(${JSON.stringify(BACKEND)});
const db = new Kysely({ dialect: openSqlite().kysely });
const { rows } = await sql.raw(\`SELECT x'00ff' AS "__proto__", 'x' AS "name", 1 AS "twice", 2 AS "twice"\`).execute(db);
const [row] = rows;
console.log(JSON.stringify({ keys: Object.keys(row), plain: Object.getPrototypeOf(row) === Object.prototype, proto: Buffer.from(Object.getOwnPropertyDescriptor(row, '__proto__').value).toString('hex'), twice: row.twice }));
await db.destroy();`,
      );
      const out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual({ keys: ['__proto__', 'name', 'twice'], plain: true, proto: '00ff', twice: 2 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('make the same objects when streamed', async () => {
    await sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, "when" TEXT)`.execute(db);
    await sql`INSERT INTO notes (body, "when") VALUES ('a', 'now'), ('b', NULL)`.execute(db);
    const streamed: Record<string, unknown>[] = [];
    for await (const row of db.selectFrom('notes').selectAll().orderBy('id').stream()) streamed.push(row);
    expect(streamed).toEqual([
      { id: 1, body: 'a', when: 'now' },
      { id: 2, body: 'b', when: null },
    ]);
    expect(Object.keys(streamed[0]!)).toEqual(['id', 'body', 'when']);
  });
});
