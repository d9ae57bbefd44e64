// The state gate covers the whole store: every table of `TABLES` has a rule, and every
// column of a state table (as the migrations make it) is named by its row schema.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/db/database.js';
import { TABLES } from '../../src/db/schema/index.js';
import { JOB_PAYLOADS, ROW_RULES } from '../../emulator/state-gate/rows.js';
import { createEmulator } from '../../emulator/emulator.js';
import { clockAndIdFaults, gateState } from '../../emulator/state-gate/gate.js';
import { UNIQUE } from '../../emulator/state-gate/references.js';

describe('the row schema registry', () => {
  it('has a rule for every table of TABLES, and nothing else', () => {
    expect(Object.keys(ROW_RULES).sort()).toEqual([...TABLES].sort());
  });

  it('names exactly the columns the migrations create, for every table a state carries', async () => {
    const store = await openStore({ kind: 'memory' });
    try {
      for (const table of TABLES) {
        const rule = ROW_RULES[table];
        if (!rule.row) {
          expect(rule.absent, `${table} has a row schema or says why not`).toBeDefined();
          continue;
        }
        const columns = (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(store.db)).rows.map((r) => r.name);
        const entries = Object.keys((rule.row as unknown as { entries: Record<string, unknown> }).entries);
        expect(entries.sort(), table).toEqual(columns.sort());
      }
    } finally {
      await store.close();
    }
  });

  it('checks the keys of every table a state carries (primary and unique keys the store keeps)', () => {
    const carried = TABLES.filter((table) => ROW_RULES[table].row);
    expect(carried.filter((table) => !UNIQUE[table]?.length)).toEqual([]);
    expect(Object.keys(UNIQUE).filter((table) => !(carried as string[]).includes(table))).toEqual([]);
  });
});

describe('job rows', () => {
  it('the gate knows the payload of every kind of job the service runs (a state exported with one queued imports)', async () => {
    const emulator = await createEmulator({ fixtures: 'none', log: () => {} });
    try {
      expect(Object.keys(JOB_PAYLOADS).sort()).toEqual(emulator.service.jobs.kinds().sort());
    } finally {
      await emulator.close();
    }
  });
});

describe('the clock and the id generator', () => {
  const valid = { clock: { frozen: true, value: Date.UTC(2026, 0, 1) }, ids: { time: -1, random: '0', draws: 0 } };

  it('an empty state with a valid clock and id generator passes', () => {
    expect(gateState({ ...valid, tables: {} })).toEqual({});
    expect(clockAndIdFaults(valid)).toEqual([]);
  });

  it.each([
    ['a frozen clock before 1970', { clock: { frozen: true, value: -1 } }, 'clock.value'],
    ['a frozen clock after the year 9000', { clock: { frozen: true, value: 1e17 } }, 'clock.value'],
    ['a running clock whose offset puts it after 9000', { clock: { frozen: false, value: 1e16 } }, 'clock.value'],
    ['a fractional clock', { clock: { frozen: true, value: 1.5 } }, 'clock.value'],
    ['an infinite id time', { ids: { time: Infinity, random: '0', draws: 0 } }, 'ids.time'],
    ['NaN draws', { ids: { time: -1, random: '0', draws: Number.NaN } }, 'ids.draws'],
    ['a random part past 2^79', { ids: { time: -1, random: (2n ** 79n).toString(), draws: 0 } }, 'ids.random'],
    ['a random part that is no number', { ids: { time: -1, random: '1e5', draws: 0 } }, 'ids.random'],
  ])('refuses %s', (_what, change, field) => {
    const faults = clockAndIdFaults({ ...valid, ...change });
    expect(faults.map((f) => f.field)).toContain(field);
  });
});
