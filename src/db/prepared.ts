import type { Compilable, CompiledQuery, Kysely } from 'kysely';

const SENTINEL = '\u0000param:';

type Executor = Pick<Kysely<unknown>, 'executeQuery'>;

/** A table's row as a prepared statement's values, by column (a table's interface has no index signature). */
export type RowParams<T> = { [K in keyof T]: T[K] };

/** An insert's values with each of `columns` a parameter of the same name (`prepareQuery`'s `param`). */
export function columnParams<T>(columns: readonly (keyof T & string)[], param: (name: keyof T & string) => never): T {
  return Object.fromEntries(columns.map((c) => [c, param(c)])) as T;
}

/** A row's values for its prepared insert: a value left undefined is written as null, as kysely leaves the column out. */
export function rowParams<T extends object>(row: T): RowParams<T> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) out[name] = value ?? null;
  return out as RowParams<T>;
}

export interface PreparedQuery<P, R> {
  /** Runs with these values, on `on` when given (a transaction of the same database), else on the database it was built for. */
  execute(params: P, on?: Executor): Promise<R[]>;
}

/**
 * Compiles a kysely query once and runs it with new parameter values, for the few
 * queries on every request's path: building and compiling costs more than running.
 * `param(name)` marks where a value goes; every other value stays as compiled.
 */
export function prepareQuery<P extends Record<string, unknown>, R>(
  db: Executor,
  build: (param: (name: keyof P & string) => never) => Compilable<R>,
): PreparedQuery<P, R> {
  // The marker is typed `never` so that it fits any column's value; each run replaces it.
  const compiled = build((name) => `${SENTINEL}${name}` as never).compile();
  const slots = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(SENTINEL) ? { name: value.slice(SENTINEL.length) } : { value },
  );
  return {
    async execute(params, on = db) {
      const parameters = slots.map((slot) => ('name' in slot ? params[slot.name as keyof P] : slot.value));
      const result = await on.executeQuery<R>({ ...compiled, parameters });
      return result.rows;
    },
  };
}

export interface PreparedInsert<R> {
  /** Inserts `rows` in order, on `on` when given (a transaction of the same database). */
  execute(rows: readonly R[], on?: Executor): Promise<void>;
}

/** Row counts up to this many get a statement of their own; larger ones are split in powers of two. */
const EXACT_ROWS = 8;

/**
 * A multi-row insert of `columns` compiled once per row count rather than on every call
 * (kysely parses and compiles each value of a multi-row insert anew: for the hundreds of
 * values an ingested document writes, more than running the insert costs). `build` makes
 * the insert of the rows it is given; `max` rows go in one statement at most, and what is
 * left is split so that few row counts, each compiled once, are ever used (D-1055).
 */
export function prepareInsert<R extends Record<string, unknown>>(
  db: Executor,
  columns: readonly (keyof R & string)[],
  max: number,
  build: (rows: R[]) => Compilable<unknown>,
): PreparedInsert<R> {
  const byCount = new Map<number, { compiled: CompiledQuery; slots: ({ row: number; column: keyof R & string } | { value: unknown })[] }>();
  const prepared = (count: number) => {
    let found = byCount.get(count);
    if (!found) {
      const rows = Array.from({ length: count }, (_, row) => Object.fromEntries(columns.map((column) => [column, `${SENTINEL}${row}:${column}`])) as R);
      const compiled = build(rows).compile();
      const slots = compiled.parameters.map((value) => {
        if (typeof value !== 'string' || !value.startsWith(SENTINEL)) return { value };
        const [row, column] = value.slice(SENTINEL.length).split(/:(.*)/s);
        return { row: Number(row), column: column as keyof R & string };
      });
      found = { compiled, slots };
      byCount.set(count, found);
    }
    return found;
  };
  return {
    async execute(rows, on = db) {
      for (let start = 0; start < rows.length; ) {
        const left = rows.length - start;
        let count = Math.min(left, max);
        if (count > EXACT_ROWS && count < max) count = 2 ** Math.floor(Math.log2(count));
        const { compiled, slots } = prepared(count);
        const parameters = slots.map((slot) => ('row' in slot ? (rows[start + slot.row]![slot.column] ?? null) : slot.value));
        await on.executeQuery({ ...compiled, parameters });
        start += count;
      }
    },
  };
}
