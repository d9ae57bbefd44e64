import { isDeepStrictEqual } from 'node:util';
import { openEmulator, SEED_EPOCH, type DemoOptions } from '../emulator.js';
import { readFixture } from '../fixtures.js';
import { gateState } from '../state-gate/gate.js';
import { PREBUILT_FORMAT, prebuiltKey, type PrebuiltState } from './demo-state.js';
import type { IdCall, IdTap } from './id-tap.js';

/**
 * The template is loaded at an instant no fixture text is likely to hold (year 2101,
 * odd seconds and milliseconds), so relocation moves only the times the load wrote, and
 * a time rounded to a day or a minute cannot pass the checks by luck.
 */
export const TEMPLATE_EPOCH = Date.parse('2101-01-01T03:25:45.678Z');
const TEMPLATE_SEED = 'svc-emulator:demo-template';

/** The checks `npm run build` runs: a seeded start as users make it, and another seed at another time. */
export const DEMO_CHECKS: readonly { seed: string; epoch: number }[] = [
  { seed: '1', epoch: SEED_EPOCH },
  { seed: 'svc-emulator:demo-check', epoch: Date.parse('2031-07-15T18:42:13.579Z') },
];

const silent = () => {};

/** Loads the bundled demo once, at a frozen instant, noting every id call: the prebuilt state (D-185). */
export async function buildDemoState(): Promise<PrebuiltState> {
  let calls: IdCall[] = [];
  const emulator = await openEmulator(
    { fixtures: 'demo', seed: TEMPLATE_SEED, log: silent },
    { epoch: TEMPLATE_EPOCH, prebuilt: 'none', record: (c) => (calls = c) },
  );
  try {
    const state = await emulator.exportState({ plainHashes: true });
    // Starts take it without the gate (D-726): the build checks it once instead.
    gateState(state);
    return { format: PREBUILT_FORMAT, key: prebuiltKey(readFixture('demo')), epoch: TEMPLATE_EPOCH, calls, keys: emulator.fixtureKeys, state };
  } finally {
    await emulator.close();
  }
}

/** What a demo start leaves: the rows, the keys the banner shows, and where every id stream stands. */
async function startDemo(seed: string, demo: DemoOptions): Promise<unknown> {
  let tap: IdTap | undefined;
  const emulator = await openEmulator({ fixtures: 'demo', seed, log: silent }, { ...demo, tap: (t) => (tap = t) });
  try {
    if (demo.prebuilt !== 'none' && emulator.demoState !== 'prebuilt') throw new Error('the prebuilt state was not used');
    const state = await emulator.exportState({ plainHashes: true });
    // What a start from it leaves passes the gate as well (D-726).
    if (demo.prebuilt !== 'none') gateState(state);
    return { state, keys: emulator.fixtureKeys, ids: tap!.snapshots(), web: await emulator.getWeb() };
  } finally {
    await emulator.close();
  }
}

/** Where two values first differ, as a path (`state.tables.jobs.0.id`), or undefined. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return `${path || '(root)'}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
}

/**
 * Starts from `prebuilt` and loads the fixtures afresh, both with `seed` at `epoch`, and
 * throws naming the first difference: rows, keys, id streams or offline web.
 */
export async function checkDemoState(prebuilt: PrebuiltState, check: { seed: string; epoch: number }): Promise<void> {
  const fresh = await startDemo(check.seed, { epoch: check.epoch, prebuilt: 'none' });
  const relocated = await startDemo(check.seed, { epoch: check.epoch, prebuilt });
  const difference = firstDifference(relocated, fresh);
  if (difference) {
    throw new Error(`the prebuilt demo started with --seed ${check.seed} at ${new Date(check.epoch).toISOString()} differs from a fresh load: ${difference}`);
  }
}
