import type { TestProject } from 'vitest/node';
import { startCluster } from './postgres.js';

/**
 * vitest `globalSetup`: one throwaway PostgreSQL cluster for the whole run, torn down
 * after it. Tests get its address with `inject('postgres')` and make their own
 * database on it (`freshDatabase`).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startCluster();
  project.provide('postgres', { host: cluster.host, port: cluster.port });
  return () => cluster.destroy();
}
