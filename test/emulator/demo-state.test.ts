import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openEmulator } from '../../emulator/emulator.js';
import { readFixture } from '../../emulator/fixtures.js';
import { packageRoot } from '../../emulator/package-info.js';
import { buildDemoState, TEMPLATE_EPOCH } from '../../emulator/prebuilt/build-demo-state.js';
import { readPrebuilt, type PrebuiltState } from '../../emulator/prebuilt/demo-state.js';
import { tempDbPath } from '../support/backends.js';
import { send } from '../support/client.js';
import { demoSession, DEMO_KEY, inProcess } from '../support/demo-session.js';
import { quiet } from '../support/emulator.js';

let prebuilt: PrebuiltState;
beforeAll(async () => {
  prebuilt = await buildDemoState();
}, 60_000);

async function sessionOver(seed: number, start: PrebuiltState | 'none'): Promise<{ answers: string[]; banner: unknown; origin: unknown }> {
  const emulator = await openEmulator({ fixtures: 'demo', seed, log: quiet }, { prebuilt: start });
  try {
    return { answers: await demoSession(inProcess(emulator)), banner: emulator.fixtureKeys, origin: emulator.demoState };
  } finally {
    await emulator.close();
  }
}

/** The 48-bit time of an id (`ws_01kd...`), in epoch milliseconds. */
const idTime = (id: string) =>
  [...id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11)].reduce((n, c) => n * 32 + '0123456789abcdefghjkmnpqrstvwxyz'.indexOf(c), 0);

describe('the prebuilt demo (dist/demo-state.json)', () => {
  it('with --seed, a session over it gives byte for byte what a session over freshly loaded fixtures gives', async () => {
    const fresh = await sessionOver(7, 'none');
    const fromPrebuilt = await sessionOver(7, prebuilt);
    expect(fromPrebuilt.origin).toBe('prebuilt');
    expect(fresh.origin).toBeUndefined();
    expect(fromPrebuilt.banner).toEqual(fresh.banner);
    expect(fromPrebuilt.answers.length).toBe(fresh.answers.length);
    for (const [i, answer] of fromPrebuilt.answers.entries()) expect(answer).toBe(fresh.answers[i]);
    // The seed still matters: another gives other ids.
    const other = await sessionOver(8, prebuilt);
    expect(other.answers[0]).not.toBe(fresh.answers[0]);
  }, 120_000);

  it("without a seed, the ids and times are this run's, not the build's", async () => {
    const before = Date.now();
    const emulator = await openEmulator({ fixtures: 'demo', log: quiet }, { prebuilt });
    const after = Date.now();
    try {
      expect(emulator.demoState).toBe('prebuilt');
      const me = (await send(emulator, 'GET', '/v1/me', { key: DEMO_KEY })).body;
      const sources = (await send(emulator, 'GET', '/v1/knowledge/sources?limit=100', { key: DEMO_KEY })).body.data as {
        id: string;
        createdAt: string;
        status: string;
      }[];
      expect(sources).toHaveLength(prebuilt.state.tables.knowledge_sources!.length);
      for (const source of sources) {
        expect(source.status).toBe('ready');
        expect(Date.parse(source.createdAt)).toBeGreaterThanOrEqual(before);
        expect(Date.parse(source.createdAt)).toBeLessThanOrEqual(after);
        expect(idTime(source.id)).toBeGreaterThanOrEqual(before);
        expect(idTime(source.id)).toBeLessThanOrEqual(after);
      }
      expect(emulator.fixtureKeys[0]!.workspaceId).toBe(me.workspaceId);
      const state = JSON.stringify(await emulator.exportState());
      expect(state).not.toContain(`${new Date(TEMPLATE_EPOCH).toISOString().slice(0, 4)}-`);
      for (const [, , , out] of prebuilt.calls) expect(state).not.toContain(out.slice(out.indexOf('_') + 1));
      // Answers come from the relocated chunks.
      const agent = (await send(emulator, 'GET', '/v1/agents', { key: DEMO_KEY })).body.data.find((a: { name: string }) => a.name === 'Aurora');
      const query = await send(emulator, 'POST', `/v1/agents/${agent.id}/query`, { key: DEMO_KEY, body: { query: 'When does the Ruzafa bar open?' } });
      expect(query.body.passages[0].text).toContain('Ruzafa');
      // The re-crawl the load scheduled is due a day after this start, not the build's.
      const crawled = (await send(emulator, 'GET', '/v1/knowledge/sources?limit=100', { key: DEMO_KEY })).body.data.find(
        (s: { kind: string }) => s.kind === 'url',
      );
      expect(Date.parse(crawled.nextSyncAt)).toBe(Date.parse(crawled.createdAt) + 24 * 3600 * 1000);
      const jobs = await emulator.service.db.selectFrom('jobs').select(['id', 'run_at']).execute();
      expect(jobs.map((job) => job.run_at)).toEqual([crawled.nextSyncAt]);
      // Its id names the source and the instant (D-185 relocates both).
      expect(jobs[0]!.id).toContain(crawled.id.slice(4));
      expect(jobs[0]!.id).not.toContain((TEMPLATE_EPOCH + 24 * 3600 * 1000).toString(36));
    } finally {
      await emulator.close();
    }
  }, 60_000);

  it('worker options that cannot fail a load (thread count, idle time, niceness) keep the prebuilt start; a limit does not (D-1221)', async () => {
    const neutral = await openEmulator(
      { fixtures: 'demo', seed: 4, log: quiet, workers: { idleTimeoutMs: 600_000, maxThreads: 3, niceIncrement: 5 } },
      { prebuilt },
    );
    try {
      expect(neutral.demoState).toBe('prebuilt');
    } finally {
      await neutral.close();
    }
    const limited = await openEmulator({ fixtures: 'demo', seed: 4, log: quiet, workers: { idleTimeoutMs: 600_000, taskTimeoutMs: 20_000 } }, { prebuilt });
    try {
      expect(limited.demoState).not.toBe('prebuilt');
    } finally {
      await limited.close();
    }
  }, 120_000);

  it('into a new --db file: kept over a restart, and reset returns to it', async () => {
    const db = tempDbPath();
    const first = await openEmulator({ db, fixtures: 'demo', seed: 3, log: quiet }, { prebuilt });
    expect(first.demoState).toBe('prebuilt');
    const loaded = await first.exportState();
    await send(first, 'POST', '/v1/agents', { key: DEMO_KEY, body: { name: 'Later', identity: { businessName: 'B' } } });
    await first.close();
    const second = await openEmulator({ db, fixtures: 'demo', seed: 3, log: quiet }, { prebuilt });
    try {
      expect(second.demoState).toBeUndefined();
      expect((await send(second, 'GET', '/v1/agents', { key: DEMO_KEY })).body.data.map((a: { name: string }) => a.name)).toContain('Later');
      await second.reset();
      // The rows and the clock are the loaded ones; the ids go on from the agent made
      // since, never back (D-1170).
      const afterReset = await second.exportState();
      expect({ ...afterReset, ids: undefined }).toEqual({ ...loaded, ids: undefined });
      expect(BigInt(afterReset.ids.random)).toBeGreaterThan(BigInt(loaded.ids.random));
    } finally {
      await second.close();
    }
  }, 60_000);

  it('a stale prebuilt state is refused, saying why: other fixtures, a file they read, another version or schema, no file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-emu-prebuilt-'));
    const file = join(dir, 'demo-state.json');
    writeFileSync(file, JSON.stringify(prebuilt));
    const demo = readFixture('demo');
    expect(readPrebuilt(demo, file)).toEqual({ state: prebuilt });

    cpSync(join(packageRoot(), 'fixtures'), join(dir, 'fixtures'), { recursive: true });
    const edited = JSON.parse(readFileSync(join(dir, 'fixtures', 'demo.json'), 'utf8'));
    edited.workspaces[0].agents[0].name = 'Aurora II';
    writeFileSync(join(dir, 'fixtures', 'demo.json'), JSON.stringify(edited));
    expect(readPrebuilt(readFixture(join(dir, 'fixtures', 'demo.json')), file)).toEqual({ why: `${file} was built from another fixtures` });

    writeFileSync(join(dir, 'fixtures', 'demo.json'), readFileSync(join(packageRoot(), 'fixtures', 'demo.json')));
    expect(readPrebuilt(readFixture(join(dir, 'fixtures', 'demo.json')), file)).toEqual({ state: prebuilt });
    writeFileSync(join(dir, 'fixtures', 'demo', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(readPrebuilt(readFixture(join(dir, 'fixtures', 'demo.json')), file)).toEqual({ why: `${file} was built from another fixtures` });

    writeFileSync(file, JSON.stringify({ ...prebuilt, key: { ...prebuilt.key, version: '0.0.1', migrations: prebuilt.key.migrations.slice(1) } }));
    expect(readPrebuilt(demo, file)).toEqual({ why: `${file} was built from another version, migrations` });
    writeFileSync(file, JSON.stringify({ ...prebuilt, key: { ...prebuilt.key, ingestion: { embedder: 'another-embedder' } } }));
    expect(readPrebuilt(demo, file)).toEqual({ why: `${file} was built from another ingestion` });
    writeFileSync(file, '{"format"');
    expect(readPrebuilt(demo, file)).toEqual({ why: `${file} is not JSON` });
    expect(readPrebuilt(demo, join(dir, 'missing.json'))).toEqual({ why: `${join(dir, 'missing.json')} is missing (npm run build writes it)` });
  });
});
