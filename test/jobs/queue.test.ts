import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/database.js';
import { type Job, JobQueue } from '../../src/jobs/queue.js';
import { EmulatedClock } from '../../src/platform/clock.js';
import { createIdGenerator } from '../../src/platform/ids.js';
import { LeasedClaims } from '../../src/jobs/leased-claims.js';
import { SharedProcess } from '../../src/platform/shared-process.js';
import { BACKENDS } from '../support/backends.js';

const open: Store[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

async function queueWith(concurrency = 2) {
  const store = await openStore({ kind: 'memory' });
  open.push(store);
  const clock = new EmulatedClock({ frozenAt: Date.parse('2026-01-01T00:00:00Z') });
  const logged: string[] = [];
  const jobs = new JobQueue({
    db: store.db,
    clock,
    ids: createIdGenerator({ clock, seed: 1 }),
    concurrency,
    log: (message, error) => logged.push(`${message} ${error instanceof Error ? error.message : ''}`),
    clockMoves: { frozen: true, onChange: () => () => {} },
  });
  const rows = () => store.db.selectFrom('jobs').select(['id', 'status', 'last_error']).orderBy('id').execute();
  return { store, jobs, logged, rows };
}

describe('jobs run in batches (D-891)', () => {
  it('hands a batch kind up to its maximum at once, and finishes the jobs its handler did not fail', async () => {
    const { store, jobs, rows } = await queueWith(1);
    const batches: string[][] = [];
    jobs.registerBatch<{ n: number }>(
      'batch.kind',
      async (batch: Job<{ n: number }>[]) => {
        batches.push(batch.map((j) => String(j.payload.n)));
        return new Map(batch.filter((j) => j.payload.n === 3).map((j) => [j.id, new Error('three is refused')]));
      },
      4,
    );
    for (let n = 1; n <= 6; n++) await jobs.enqueue(store.db, { id: `job_${n}`, workspaceId: 'ws_1', kind: 'batch.kind', payload: { n } });
    await jobs.start();
    expect(await jobs.drain()).toBe(6);
    await jobs.stop();
    expect(batches.map((b) => b.length).reduce((a, b) => a + b, 0)).toBe(6);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(4);
    expect(batches.length).toBeLessThan(6);
    // Only the job the handler answered as failed is left, failed with its message.
    expect(await rows()).toEqual([{ id: 'job_3', status: 'failed', last_error: 'three is refused' }]);
  });

  it('fails a whole batch whose handler throws, and fails alone a job whose stored payload is not JSON (D-722)', async () => {
    const { store, jobs, logged, rows } = await queueWith(1);
    const ran: string[] = [];
    jobs.registerBatch(
      'batch.kind',
      async (batch: Job[]) => {
        ran.push(...batch.map((j) => j.id));
        if (batch.some((j) => j.id === 'job_b')) throw new Error('the store went away');
        return undefined;
      },
      8,
    );
    await jobs.enqueue(store.db, { id: 'job_a', workspaceId: 'ws_1', kind: 'batch.kind', payload: {} });
    await jobs.enqueue(store.db, { id: 'job_b', workspaceId: 'ws_1', kind: 'batch.kind', payload: {} });
    await jobs.enqueue(store.db, { id: 'job_c', workspaceId: 'ws_1', kind: 'batch.kind', payload: {} });
    await store.db.updateTable('jobs').set({ payload: '{not json' }).where('id', '=', 'job_c').execute();
    await jobs.start();
    await jobs.drain();
    await jobs.stop();
    // job_c never reached the handler; a and b, handed over together, failed together.
    expect(ran.sort()).toEqual(['job_a', 'job_b']);
    expect(await rows()).toEqual([
      { id: 'job_a', status: 'failed', last_error: 'the store went away' },
      { id: 'job_b', status: 'failed', last_error: 'the store went away' },
      { id: 'job_c', status: 'failed', last_error: expect.stringContaining('not JSON') },
    ]);
    expect(logged.some((line) => line.includes('job_c'))).toBe(true);
  });

  it('runs a kind registered one by one a job at a time', async () => {
    const { store, jobs, rows } = await queueWith(2);
    let running = 0;
    let most = 0;
    jobs.register('single.kind', async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
    });
    for (let n = 1; n <= 5; n++) await jobs.enqueue(store.db, { workspaceId: 'ws_1', kind: 'single.kind', payload: { n } });
    await jobs.start();
    expect(await jobs.drain()).toBe(5);
    await jobs.stop();
    expect(most).toBeLessThanOrEqual(2);
    expect(await rows()).toEqual([]);
  });
});

describe('workspaces take turns (D-1118)', () => {
  for (const backend of BACKENDS) {
    it(`on ${backend.name}: each workspace's oldest job first, then each one's second, single jobs and batches alike`, async () => {
      const store = await openStore(backend.options());
      open.push(store);
      const clock = new EmulatedClock({ frozenAt: Date.parse('2026-01-01T00:00:00Z') });
      // A shared store claims under leases (LeasedClaims), as the service does there.
      const process = store.shared ? new SharedProcess(store.db, 'ins_turns', { leaseMs: 60_000, now: () => clock.now(), log: () => {} }) : undefined;
      await process?.start();
      /** The order the jobs ran in (a batch's jobs in one entry) when workspace a asked first for four, b then for two, c for one. */
      const ran = async (batch: number): Promise<string[][]> => {
        const queue = new JobQueue({
          db: store.db,
          clock,
          ids: createIdGenerator({ clock, seed: 1 }),
          concurrency: 1,
          log: () => {},
          clockMoves: { frozen: true, onChange: () => () => {} },
          claims: process && new LeasedClaims(store.db, process),
        });
        const order: string[][] = [];
        queue.registerBatch('some.kind', async (jobs) => void order.push(jobs.map((j) => j.id.replace(/^.*_/, ''))), batch);
        for (const [ws, n] of [
          ['a', 4],
          ['b', 2],
          ['c', 1],
        ] as const) {
          for (let i = 1; i <= n; i++) await queue.enqueue(store.db, { id: `job${batch}_${ws}${i}`, workspaceId: `ws_${ws}`, kind: 'some.kind', payload: {} });
        }
        await queue.start();
        await queue.drain();
        await queue.stop();
        return order;
      };
      try {
        expect((await ran(1)).flat()).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
        expect(await ran(3)).toEqual([['a1', 'b1', 'c1'], ['a2', 'b2', 'a3'], ['a4']]);
      } finally {
        await process?.stop();
      }
    });
  }
});

describe('claims among processes sharing a store (D-204, D-1211)', () => {
  for (const backend of BACKENDS.filter((b) => b.name === 'postgres')) {
    it(`on ${backend.name}: a job whose holder died is claimed again in its workspace's turn; a job held, or not due, is not`, async () => {
      const store = await openStore(backend.options());
      open.push(store);
      const at = (minutes: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + minutes * 60_000).toISOString();
      const job = (id: string, workspace: string, minutes: number, kind = 'some.kind') => ({
        id,
        workspace_id: workspace,
        kind,
        payload: '{}',
        status: 'queued',
        run_at: at(minutes),
        attempts: 0,
        last_error: null,
        created_at: at(0),
        updated_at: at(0),
      });
      await store.db
        .insertInto('jobs')
        .values([
          job('a1', 'ws_a', 0),
          job('a2', 'ws_a', 1),
          job('a3', 'ws_a', 2),
          job('b1', 'ws_b', 0),
          job('c1', 'ws_c', 60 * 24),
          job('d1', 'ws_d', 0, 'other.kind'),
        ])
        .execute();
      const processOf = (id: string) => new SharedProcess(store.db, id, { leaseMs: 60_000, now: () => Date.now(), log: () => {} });
      const dead = processOf('ins_dead');
      const alive = processOf('ins_alive');
      await dead.start();
      await alive.start();
      try {
        const now = at(5);
        const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id);
        const first = await new LeasedClaims(store.db, dead).claim(now, 2, new Set(), [], 'some.kind');
        expect(ids(first)).toEqual(['a1', 'b1']);
        // Its lease ends with it: what it ran is anyone's, each in its workspace's turn.
        await dead.stop();
        const claims = new LeasedClaims(store.db, alive);
        const taken = await claims.claim(now, 10, new Set(), [], 'some.kind');
        expect(ids(taken)).toEqual(['a1', 'b1', 'a2', 'a3']);
        expect(taken.find((j) => j.id === 'a1')?.attempts).toBe(2);
        // Held by a live process: claimed by nobody, this process included while it runs them.
        expect(await new LeasedClaims(store.db, processOf('ins_third')).claim(now, 10, new Set(), [], 'some.kind')).toEqual([]);
        expect(await claims.claim(now, 10, new Set(ids(taken)), [], 'some.kind')).toEqual([]);
        // Of any kind: the one job of another kind; c1 runs tomorrow.
        expect(ids(await claims.claim(now, 10, new Set(ids(taken)), []))).toEqual(['d1']);
      } finally {
        await alive.stop();
      }
    });
  }
});
