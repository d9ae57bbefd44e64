import { MAX_ACTIVE_KEYS } from '../../src/auth/auth.service.js';
import { GLOBAL_TABLES } from '../../src/db/schema/index.js';
import type { RowFault } from './rows.js';

// What rows of different tables must agree on: references that resolve (in the row's own
// workspace) and keys that are unique, as the store's constraints and the service keep them.

type Row = Record<string, unknown>;
type Tables = Record<string, Row[]>;

interface Reference {
  column: string;
  to: string;
  /** A further agreement with the row referred to. */
  also?(row: Row, target: Row): RowFault | undefined;
}

const sameAgent = (row: Row, target: Row): RowFault | undefined =>
  row.agent_id === target.agent_id ? undefined : { column: 'agent_id', reason: `must be the agent of ${target.id}` };

const REFERENCES: Record<string, Reference[]> = {
  idempotency: [{ column: 'key_id', to: 'api_keys' }],
  conversations: [{ column: 'agent_id', to: 'agents' }],
  chat_messages: [{ column: 'conversation_id', to: 'conversations', also: sameAgent }],
  knowledge_sources: [{ column: 'agent_id', to: 'agents' }],
  knowledge_inputs: [{ column: 'source_id', to: 'knowledge_sources' }],
  knowledge_chunks: [
    {
      column: 'source_id',
      to: 'knowledge_sources',
      also: (row, source) => (source.status !== 'ready' ? { column: 'source_id', reason: 'chunks belong to a ready source' } : sameAgent(row, source)),
    },
  ],
  project_slugs: [{ column: 'project_id', to: 'projects' }],
  pages: [
    { column: 'project_id', to: 'projects' },
    { column: 'agent_id', to: 'agents' },
  ],
  themes: [{ column: 'project_id', to: 'projects' }],
  assets: [{ column: 'page_id', to: 'pages' }],
  brands: [{ column: 'project_id', to: 'projects' }],
  brand_files: [{ column: 'project_id', to: 'projects' }],
};

/** Keys no two rows of a table share: a name for the message and the key of a row (undefined: not keyed). */
export const UNIQUE: Record<string, [string, (row: Row) => string | undefined][]> = {
  workspaces: [['id', (r) => String(r.id)]],
  api_keys: [
    ['id', (r) => String(r.id)],
    ['hash', (r) => String(r.hash)],
  ],
  idempotency: [['idem_key', (r) => `${r.key_id}\n${r.idem_key}`]],
  activity: [['day', (r) => `${r.workspace_id}\n${r.day}`]],
  jobs: [['id', (r) => String(r.id)]],
  agents: [['id', (r) => String(r.id)]],
  conversations: [['id', (r) => String(r.id)]],
  chat_messages: [['id', (r) => String(r.id)]],
  knowledge_sources: [['id', (r) => String(r.id)]],
  knowledge_inputs: [['source_id', (r) => String(r.source_id)]],
  knowledge_chunks: [['id', (r) => String(r.id)]],
  knowledge_lexicons: [['workspace_id', (r) => String(r.workspace_id)]],
  projects: [['id', (r) => String(r.id)]],
  project_slugs: [['slug', (r) => String(r.slug)]],
  pages: [
    ['id', (r) => String(r.id)],
    ['path', (r) => `${r.project_id}\n${r.path}`],
  ],
  themes: [['project_id', (r) => String(r.project_id)]],
  assets: [
    ['id', (r) => String(r.id)],
    ['key', (r) => (r.key === null ? undefined : `${r.workspace_id}\n${r.page_id}\n${r.key}`)],
  ],
  brands: [['project_id', (r) => `${r.workspace_id}\n${r.project_id}`]],
  brand_files: [
    ['id', (r) => String(r.id)],
    ['slot', (r) => `${r.workspace_id}\n${r.project_id}\n${r.slot}`],
  ],
};

/** A fault of a row found by comparing it with others. */
export interface CrossFault extends RowFault {
  table: string;
  index: number;
}

/**
 * Every reference that does not resolve, every key used twice and every active API key
 * past a workspace's two, in table order. `now`: the state's clock, as the ISO text
 * `expires_at` is compared with.
 */
export function crossFaults(tables: Tables, now: string): CrossFault[] {
  const faults: CrossFault[] = [];
  const byId = new Map<string, Map<string, Row>>();
  const index = (table: string) => {
    let map = byId.get(table);
    if (!map) {
      map = new Map((tables[table] ?? []).map((r) => [String(r.id), r]));
      byId.set(table, map);
    }
    return map;
  };
  for (const [table, rows] of Object.entries(tables)) {
    for (const [column, key] of UNIQUE[table] ?? []) {
      const seen = new Set<string>();
      rows.forEach((row, i) => {
        const k = key(row);
        if (k === undefined) return;
        if (seen.has(k)) faults.push({ table, index: i, column, reason: 'must be unique: another row has it' });
        seen.add(k);
      });
    }
    rows.forEach((row, i) => {
      if (!GLOBAL_TABLES.has(table) && !index('workspaces').has(String(row.workspace_id))) {
        faults.push({ table, index: i, column: 'workspace_id', reason: 'must name a workspace of the state' });
        return;
      }
      for (const ref of REFERENCES[table] ?? []) {
        const value = row[ref.column];
        if (value === null) continue;
        const target = index(ref.to).get(String(value));
        if (!target || target.workspace_id !== row.workspace_id) {
          faults.push({ table, index: i, column: ref.column, reason: `must name a row of ${ref.to} in the same workspace` });
          continue;
        }
        const also = ref.also?.(row, target);
        if (also) faults.push({ table, index: i, ...also });
      }
    });
  }
  faults.push(...fileIds(tables), ...addresses(tables), ...activeKeys(tables, now));
  return faults;
}

/** A workspace has at most two active keys (API.md); the service refuses a third, so a state may not hold one (D-1116). */
function activeKeys(tables: Tables, now: string): CrossFault[] {
  const faults: CrossFault[] = [];
  const active = new Map<string, number>();
  (tables.api_keys ?? []).forEach((row, index) => {
    if (row.revoked_at !== null || (row.expires_at !== null && String(row.expires_at) <= now)) return;
    const n = (active.get(String(row.workspace_id)) ?? 0) + 1;
    active.set(String(row.workspace_id), n);
    if (n > MAX_ACTIVE_KEYS)
      faults.push({
        table: 'api_keys',
        index,
        column: 'revoked_at',
        reason: `a workspace has at most ${MAX_ACTIVE_KEYS} active keys: revoke or expire the others`,
      });
  });
  return faults;
}

/** Assets and brand files are served by one route, `/files/{id}`: their ids never meet. */
function fileIds(tables: Tables): CrossFault[] {
  const assets = new Set((tables.assets ?? []).map((r) => String(r.id)));
  return (tables.brand_files ?? []).flatMap((row, index) =>
    assets.has(String(row.id)) ? [{ table: 'brand_files', index, column: 'id', reason: 'must not be the id of an asset' }] : [],
  );
}

/** A project's address is its one active slug row, and an active row is its project's address. */
function addresses(tables: Tables): CrossFault[] {
  const faults: CrossFault[] = [];
  const projects = new Map((tables.projects ?? []).map((r) => [String(r.id), r]));
  const active = new Map<string, Row>();
  (tables.project_slugs ?? []).forEach((row, index) => {
    if (row.state !== 'active') return;
    const project = projects.get(String(row.project_id));
    if (active.has(String(row.project_id))) faults.push({ table: 'project_slugs', index, column: 'state', reason: 'a project has one active slug' });
    else if (project && project.slug !== row.slug)
      faults.push({ table: 'project_slugs', index, column: 'slug', reason: `must be the slug of ${row.project_id}` });
    active.set(String(row.project_id), row);
  });
  (tables.projects ?? []).forEach((row, index) => {
    if (!active.has(String(row.id))) faults.push({ table: 'projects', index, column: 'slug', reason: 'must be held by an active row of project_slugs' });
  });
  return faults;
}
