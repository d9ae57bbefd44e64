import type { Compilable, Kysely } from 'kysely';

const SENTINEL = '\u0000param:';

type Executor = Pick<Kysely<unknown>, 'executeQuery'>;

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
