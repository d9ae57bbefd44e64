import * as v from 'valibot';
import { TABLES } from '../../src/db/schema/index.js';
import { LATEST_INSTANT } from '../../src/platform/clock.js';
import { iso } from '../../src/platform/time.js';
import { ServiceError, type FieldError } from '../../src/platform/service-error.js';
import { toFieldErrors } from '../../src/platform/validation.js';
import { crossFaults } from './references.js';
import { ROW_RULES } from './rows.js';

type Row = Record<string, unknown>;

/** What the gate reads: the clock, the id generator and every table's rows. */
export interface GateInput {
  clock: unknown;
  ids: unknown;
  tables: Record<string, Row[]>;
}

/** What the gate is told beyond the document. */
export interface GateOptions {
  /** Real time now, for a running clock (default `Date.now()`). */
  now?: number;
  /**
   * The answers routes under `Idempotency-Key` give, by status (the emulator's routes):
   * a stored replay must be one of them. Without it, a replay's body need only be JSON.
   */
  replays?: ReadonlyMap<number, readonly v.GenericSchema<unknown, unknown>[]>;
}

/** Why a recorded answer is none the routes give (undefined when it is one). */
function replayFault(row: Row, replays: GateOptions['replays']): { column: string; reason: string } | undefined {
  if (!replays || row.state !== 'done') return undefined;
  const schemas = replays.get(row.status as number);
  if (!schemas) return { column: 'status', reason: `must be a status an idempotent route answers (${[...replays.keys()].join(', ')})` };
  const body = JSON.parse(row.body as string) as unknown;
  return schemas.some((schema) => v.is(schema, body))
    ? undefined
    : { column: 'body', reason: `must be an answer an idempotent route gives with ${row.status}` };
}

/** A refusal lists at most this many faults (the first ones, in table order). */
export const MAX_FAULTS = 50;

/** The latest instant a state's clock may stand at: the clock's own (decisions, D-723). */
export const MAX_CLOCK = LATEST_INSTANT;

// The 80-bit random part of the last id, with the top bit clear (the generator's headroom).
const MAX_RANDOM = 2n ** 79n - 1n;

const Instant = v.pipe(
  v.number('must be a number'),
  v.integer('must be whole milliseconds'),
  v.minValue(0, 'must not be before 1970'),
  v.maxValue(MAX_CLOCK, 'must not be after the year 9000'),
);

const ClockSchema = v.strictObject({ frozen: v.boolean(), value: v.pipe(v.number('must be a number'), v.integer('must be whole milliseconds')) });
const IdsSchema = v.strictObject({
  // -1: no id drawn yet.
  time: v.union([v.literal(-1), Instant], 'must be -1 or an instant from 1970 to the year 9000 (whole milliseconds)'),
  random: v.pipe(
    v.string(),
    v.regex(/^\d{1,25}$/, 'must be a decimal number'),
    v.check((r) => /^\d{1,25}$/.test(r) && BigInt(r) <= MAX_RANDOM, 'must be below 2^79'),
  ),
  draws: v.pipe(
    v.number(),
    v.integer('must be a whole number'),
    v.minValue(0, 'must be 0 or more'),
    v.maxValue(Number.MAX_SAFE_INTEGER, 'must be a safe integer'),
  ),
});

/** How a fault names its row: `{ row: <id or key> }` when the row has one that reads as text. */
function rowName(table: string): (row: unknown) => { row?: string } {
  const rule = ROW_RULES[table as (typeof TABLES)[number]];
  return (row) => {
    if (row === null || typeof row !== 'object') return {};
    const name = rule.name ? rule.name(row as Row) : (row as Row).id;
    return typeof name === 'string' && name.length <= 300 && !name.includes('undefined') ? { row: name } : {};
  };
}

const prefixed = (prefix: string, errors: FieldError[]) => errors.map((e) => ({ ...e, field: e.field === '(body)' ? prefix : `${prefix}.${e.field}` }));

/** The instant a state's clock stands at. Frozen: its value. Running: the offset added to real time `now`. */
function clockInstant(clock: v.InferOutput<typeof ClockSchema>, now: number): number {
  return clock.frozen ? clock.value : now + clock.value;
}

/**
 * The clock and the id generator: finite, whole, and within the dates the service can
 * write (D-723). Either may be left out (`undefined`) when only the other is checked.
 */
export function clockAndIdFaults(input: { clock?: unknown; ids?: unknown }, now = Date.now()): FieldError[] {
  const faults: FieldError[] = [];
  const clock = 'clock' in input ? v.safeParse(ClockSchema, input.clock) : undefined;
  if (clock && !clock.success) faults.push(...prefixed('clock', toFieldErrors(clock.issues)));
  else if (clock) {
    const instant = clockInstant(clock.output, now);
    if (instant < 0 || instant > MAX_CLOCK) faults.push({ field: 'clock.value', reason: `puts the clock at ${instant}, outside 1970 to the year 9000` });
  }
  const ids = 'ids' in input ? v.safeParse(IdsSchema, input.ids) : undefined;
  if (ids && !ids.success) faults.push(...prefixed('ids', toFieldErrors(ids.issues)));
  return faults;
}

/**
 * The state gate (decisions, D-720): checks a state document's clock, id generator and
 * every row of every table against what the service itself writes, before anything is
 * written. Answers the rows to insert (bytes read into Buffers), or throws
 * `400 svc.request.validation_failed` whose `errors` name each row and field at fault
 * (`tables.api_keys.3.scopes`, with the row's id in `row`).
 */
export function gateState(input: GateInput, options: GateOptions = {}): Record<string, Row[]> {
  const real = options.now ?? Date.now();
  const faults: FieldError[] = clockAndIdFaults(input, real);
  const out: Record<string, Row[]> = {};
  for (const table of TABLES) {
    const rows = input.tables[table];
    if (rows === undefined || (rows.length === 0 && !ROW_RULES[table].row)) continue;
    const rule = ROW_RULES[table];
    if (!rule.row) {
      faults.push({
        field: `tables.${table}`,
        reason: rule.absent === 'derived' ? 'is derived and built again after an import: leave it out' : 'is not state',
      });
      continue;
    }
    const name = rowName(table);
    const decoded: Row[] = [];
    rows.forEach((row, i) => {
      if (faults.length >= MAX_FAULTS) return;
      const at = `tables.${table}.${i}`;
      const parsed = v.safeParse(rule.row!, row);
      if (!parsed.success) {
        for (const e of toFieldErrors(parsed.issues))
          faults.push({ field: e.field === '(body)' ? at : `${at}.${e.field.split('.')[0]}`, reason: e.reason, ...name(row) });
        return;
      }
      const cells = parsed.output as Row;
      const cellFaults = rule.check?.(cells) ?? [];
      const replay = table === 'idempotency' && cellFaults.length === 0 ? replayFault(cells, options.replays) : undefined;
      for (const f of replay ? [replay] : cellFaults) faults.push({ field: `${at}.${f.column}`, reason: f.reason, ...name(row) });
      decoded.push(cells);
    });
    out[table] = decoded;
  }
  // References and keys are compared once every row reads as a row.
  if (faults.length === 0) {
    // The instant the state's clock stands at (checked above): what a key's expiry is compared with.
    const clock = v.safeParse(ClockSchema, input.clock);
    const instant = clock.success ? clockInstant(clock.output, real) : real;
    for (const f of crossFaults(out, iso(instant)).slice(0, MAX_FAULTS)) {
      const row = out[f.table]![f.index]!;
      faults.push({ field: `tables.${f.table}.${f.index}.${f.column}`, reason: f.reason, ...rowName(f.table)(row) });
    }
  }
  if (faults.length > 0) {
    throw new ServiceError('svc.request.validation_failed', {
      detail: {
        en: 'The state holds rows this service could not have written; nothing was imported.',
        es: 'El estado contiene filas que este servicio no pudo haber escrito; no se importó nada.',
      },
      errors: faults.slice(0, MAX_FAULTS),
    });
  }
  return out;
}
