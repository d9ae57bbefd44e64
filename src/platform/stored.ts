import * as v from 'valibot';
import { ServiceError } from './service-error.js';
import { parseOrThrow } from './validation.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

/** Where a stored value lives: a table, the row's id (or key) and a column. */
export interface StoredAt {
  table: string;
  row: string;
  column: string;
}

/** Why a stored value cannot be read, for the operator's log: the row and column. */
export class StoredValueError extends Error {
  constructor(
    readonly at: StoredAt,
    readonly reason: string,
  ) {
    super(`stored row ${at.table} ${at.row}: column ${at.column}: ${reason}`);
    this.name = 'StoredValueError';
  }
}

/**
 * The answer to a stored value this service cannot read, a row it did not write (one put
 * into the store by hand): `503 svc.service.unavailable` naming the resource, never a 500
 * nor a crash; the cause names the row for the log (decisions, D-722).
 */
export function unreadableStored(at: StoredAt, reason: string): ServiceError {
  const what = `${at.table} ${at.row}`;
  return new ServiceError('svc.service.unavailable', {
    detail: {
      en: `The stored ${what} cannot be read (${at.column}): it was not written by this service. Reset the emulator or import a state it exported.`,
      es: `No se puede leer ${what} guardado (${at.column}): no lo escribió este servicio. Restablezca el emulador o importe un estado exportado por él.`,
    },
    errors: [{ field: `${at.table}.${at.row}.${at.column}`, reason }],
    cause: new StoredValueError(at, reason),
  });
}

/** Validates a stored value with the schema the service wrote it under; else `unreadableStored`. */
export function storedValue<S extends AnySchema>(schema: S, value: unknown, at: StoredAt): v.InferOutput<S> {
  try {
    return parseOrThrow(schema, value, 'svc.request.validation_failed');
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const first = error.errors?.[0];
    throw unreadableStored(at, first ? `${first.field === '(body)' ? '' : `${first.field}: `}${first.reason}` : error.message);
  }
}

/** Parses a JSON column and validates it; anything else is `unreadableStored`. */
export function storedJson<S extends AnySchema>(schema: S, text: string | null, at: StoredAt): v.InferOutput<S> {
  let value: unknown;
  try {
    value = JSON.parse(text as string);
  } catch {
    throw unreadableStored(at, 'not JSON');
  }
  return storedValue(schema, value, at);
}

/** The latest instant an ISO 8601 date of four-digit years can hold (9999-12-31T23:59:59.999Z). */
export const MAX_INSTANT = 253_402_300_799_999;

/** Whether `ms` is an instant the service can write as an RFC 3339 date (years 1970 to 9999). */
export function isStorableInstant(ms: unknown): ms is number {
  return typeof ms === 'number' && Number.isInteger(ms) && ms >= 0 && ms <= MAX_INSTANT;
}

/** Whether `text` is a timestamp exactly as the service writes it (`iso()`: UTC, milliseconds). */
export function isStoredTimestamp(text: unknown): text is string {
  if (typeof text !== 'string' || text.length !== 24 || !text.endsWith('Z')) return false;
  const ms = Date.parse(text);
  return isStorableInstant(ms) && new Date(ms).toISOString() === text;
}

/** A timestamp column as the service writes it. */
export const StoredTimestampSchema = v.pipe(
  v.string(),
  v.check<string, string>((text) => isStoredTimestamp(text), 'must be a UTC timestamp as the service writes it (YYYY-MM-DDTHH:mm:ss.sssZ)'),
);
