import { iso } from '../../src/platform/time.js';
import type { StateDocument } from '../state.js';

/**
 * How far after the template's instant a time may lie and still be one the load made
 * (a re-crawl a day on, a key's expiry): ten years.
 */
const WINDOW_MS = 10 * 365 * 24 * 3600 * 1000;

// Our own rows, never client input: a fixed-length token between lookarounds is linear.
const ID_BODY = /(?<![0-9A-Za-z])[0-9a-hjkmnp-tv-z]{26}(?![0-9A-Za-z])/g;
const ISO_MS = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;
// An instant in base 36 after an id body: ingestion's re-crawl job ids (`job_<source>_<syncAt>`).
const BASE36_AFTER_ID = /(?<=[0-9a-hjkmnp-tv-z]{26}_)[0-9a-z]{8,9}(?![0-9A-Za-z])/g;

const body = (id: string) => id.slice(id.indexOf('_') + 1);

/**
 * The rows of a state loaded at the frozen instant `from`, as they would have been had
 * the load run at `to` with this run's generators: every id and secret the load drew
 * replaced by this run's (`outputs`, from `IdTap.replay`), every instant the load wrote
 * moved by `to - from` (D-185). The build checks that nothing else depends on the seed,
 * the secret or the clock by comparing the result with real loads.
 */
export function relocateTables(tables: StateDocument['tables'], outputs: ReadonlyMap<string, string>, from: number, to: number): StateDocument['tables'] {
  const ids = new Map<string, string>();
  const secrets: [string, string][] = [];
  for (const [was, now] of outputs) {
    if (was.includes('_')) ids.set(body(was), body(now));
    else if (was !== now) secrets.push([was, now]);
  }
  const shift = to - from;
  const moved = (ms: number) => ms >= from && ms <= from + WINDOW_MS;
  let text = JSON.stringify(tables);
  if (shift !== 0) {
    text = text.replace(ISO_MS, (stamp) => {
      const ms = Date.parse(stamp);
      return moved(ms) ? iso(ms + shift) : stamp;
    });
    text = text.replace(BASE36_AFTER_ID, (token) => {
      const ms = parseInt(token, 36);
      return moved(ms) ? (ms + shift).toString(36) : token;
    });
  }
  text = text.replace(ID_BODY, (token) => ids.get(token) ?? token);
  for (const [was, now] of secrets) if (text.includes(was)) text = text.split(was).join(now);
  return JSON.parse(text) as StateDocument['tables'];
}
