import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openStore } from '../../src/db/database.js';
import { startCluster } from './postgres.js';
import { testStoreName } from './store.js';

/**
 * vitest `globalSetup`: one throwaway PostgreSQL cluster for the whole run, torn down
 * after it. Tests get its address with `inject('postgres')` and make their own
 * database on it (`freshDatabase`). A run on PGlite or PostgreSQL (`SVC_TEST_STORE`)
 * also migrates a template once, which each test's store starts as a copy of: a new
 * PGlite runs initdb, seconds on a busy machine, and a copy skips it.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const store = testStoreName();
  const cluster = await startCluster();
  project.provide('postgres', { host: cluster.host, port: cluster.port });
  let pgliteTemplate: string | undefined;
  if (store === 'postgres') {
    const url = cluster.createDatabase('emulator_template');
    await (await openStore({ kind: 'postgres', url })).close();
    project.provide('postgresTemplate', 'emulator_template');
  } else if (store === 'pglite') {
    pgliteTemplate = mkdtempSync(join(tmpdir(), 'svc-emu-pglite-template-'));
    await (await openStore({ kind: 'pglite', dataDir: pgliteTemplate })).close();
    project.provide('pgliteTemplate', pgliteTemplate);
  }
  if (store !== 'sqlite-memory') console.log(`svc-emulator tests on store ${store} (SVC_TEST_STORE)`);
  return () => {
    cluster.destroy();
    if (pgliteTemplate) rmSync(pgliteTemplate, { recursive: true, force: true });
  };
}
