/** RFC 3339 UTC with milliseconds, the one timestamp format of the API. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * Parses an RFC 3339 timestamp to epoch milliseconds, or undefined. Every field must be
 * in its range (D-1099): `Date.parse` rolls an impossible date over (February 30 reads
 * as March 2), so a key would expire on another day than the one asked for. `t` and `z`
 * may be lowercase (RFC 3339, 5.6); a leap second (`:60`) is not taken.
 */
export function parseIso(value: string): number | undefined {
  const m = RFC_3339.exec(value);
  if (!m) return undefined;
  // An absent offset (`Z`) reads as 0.
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = m.slice(1).map((part) => Number(part ?? 0));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const ms = Date.parse(value.toUpperCase());
  return Number.isNaN(ms) ? undefined : ms;
}

const FRACTION = /[.,](\d+)/;

/**
 * Whether a timestamp's fraction of a second goes past the millisecond (`.9999`, not
 * `.999000`): an instant the clock cannot hold, which `Date.parse` would cut (D-1092).
 */
export function finerThanMilliseconds(value: string): boolean {
  const digits = FRACTION.exec(value)?.[1] ?? '';
  return /[1-9]/.test(digits.slice(3));
}

/** The UTC calendar day (`YYYY-MM-DD`) of an instant. */
export function utcDay(ms: number): string {
  return iso(ms).slice(0, 10);
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
