import { sql } from 'kysely';
import type { AnyKysely } from '../sql-dialect.js';

/**
 * What a SQLite store holds besides its rows: its tables with their columns, its
 * indexes, triggers and views, and the migrations it records. A file someone hands the
 * emulator may hold more than svc-emulator writes (a trigger that fires on the
 * emulator's own writes, a unique index its inserts break) or less (a dropped table):
 * it is compared with what the same migrations make (decisions, D-1151).
 */
export interface SqliteSchema {
  /** Each table's columns as `name type notnull default pk`, in order. */
  tables: Map<string, string[]>;
  /** Index, trigger and view names with their SQL, white space folded (`type name`). */
  objects: Map<string, string>;
  /** The migrations applied, in name order (none: no migration table). */
  migrations: string[];
}

const fold = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

/** The schema of the SQLite database behind `db`, SQLite's own objects (`sqlite_*`) left out. */
export async function readSqliteSchema(db: AnyKysely): Promise<SqliteSchema> {
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
    SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name`.execute(db);
  const tables = new Map<string, string[]>();
  const objects = new Map<string, string>();
  for (const row of rows) {
    if (row.type === 'table') {
      const { rows: columns } = await sql<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>`
        SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(${row.name})`.execute(db);
      tables.set(
        row.name,
        columns.map((c) => `${c.name} ${c.type} ${c.notnull} ${c.dflt_value ?? ''} ${c.pk}`),
      );
    } else objects.set(`${row.type} ${row.name}`, fold(row.sql));
  }
  const migrations = tables.has('kysely_migration')
    ? (await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db)).rows.map((r) => r.name)
    : [];
  return { tables, objects, migrations };
}

/** The first way `found` differs from `expected`, as the end of a sentence; undefined when it does not. */
export function schemaDifference(found: SqliteSchema, expected: SqliteSchema): string | undefined {
  for (const name of expected.tables.keys()) if (!found.tables.has(name)) return `it has no table ${name}`;
  for (const [name, columns] of found.tables) {
    const wanted = expected.tables.get(name);
    if (!wanted) return `it holds a table svc-emulator does not write (${name})`;
    if (columns.join('\n') !== wanted.join('\n')) return `its table ${name} has other columns than svc-emulator writes`;
  }
  for (const [key, text] of found.objects) {
    const wanted = expected.objects.get(key);
    if (wanted === undefined) {
      const [type, name] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
      return `it holds ${type === 'index' ? 'an' : 'a'} ${type} svc-emulator does not write (${name})`;
    }
    if (wanted !== text) return `its ${key} is not the one svc-emulator writes`;
  }
  for (const key of expected.objects.keys()) if (!found.objects.has(key)) return `it has no ${key}`;
  return undefined;
}
