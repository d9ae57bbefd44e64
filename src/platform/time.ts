/** RFC 3339 UTC with milliseconds, the one timestamp format of the API. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Parses an RFC 3339 timestamp to epoch milliseconds, or undefined. */
export function parseIso(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The UTC calendar day (`YYYY-MM-DD`) of an instant. */
export function utcDay(ms: number): string {
  return iso(ms).slice(0, 10);
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
