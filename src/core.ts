import type { Kysely } from 'kysely';
import type { SqlDialect } from './db/dialects/sql-dialect.js';
import type { Database } from './db/schema/index.js';
import type { JobQueue } from './jobs/queue.js';
import type { Clock } from './platform/clock.js';
import type { IdGenerator } from './platform/ids.js';
import type { Cursors } from './platform/pagination.js';
import type { Settings } from './platform/settings.js';
import type { WorkspacesService } from './workspaces/workspaces.service.js';

/** What every part's service may use; `createService` builds it once. */
export interface CoreDeps {
  db: Kysely<Database>;
  dialect: SqlDialect;
  clock: Clock;
  ids: IdGenerator;
  settings: Settings;
  cursors: Cursors;
  jobs: JobQueue;
  workspaces: WorkspacesService;
}
