import type { DialectMigration } from './migration.js';

/**
 * Each workspace's due jobs in order: a claim takes the first few of every workspace with
 * jobs queued (D-1118's turns) by a seek each, where numbering every queued job of every
 * workspace made a claim cost in proportion to the whole queue, so quadratic in the jobs
 * one burst of uploads brings (D-1209).
 */
export const jobTurns: DialectMigration = {
  async up(db) {
    await db.schema.createIndex('jobs_turns').on('jobs').columns(['status', 'workspace_id', 'run_at', 'id']).execute();
  },
};
