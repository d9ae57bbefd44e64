// The pieces of the state gate's property test (test/emulator/state-fuzz.test.ts): a state
// with a row in every table, mutations of any cell of it, every route of the API, the
// control plane and the hosted sites, and what a well-formed answer is.
import fc from 'fast-check';
import type { Emulator } from '../../emulator/emulator.js';
import type { StateDocument } from '../../emulator/state.js';

type Row = Record<string, unknown>;
export type Doc = StateDocument & { tables: Record<string, Row[]> };

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="4"/></svg>';

const file = (bytes: Uint8Array | string, name: string, type: string) => {
  const form = new FormData();
  form.set('file', new File([bytes], name, { type }));
  return form;
};

/** The idempotent request the base states answered once, replayed by the walk. */
export const REPLAYED = { idemKey: 'fuzz-replayed', body: { name: 'Replayed', identity: { businessName: 'B' } } };

async function must(res: Promise<{ status: number; text: string }>, status: number) {
  const answer = await res;
  if (answer.status !== status) throw new Error(`building the fuzz state: ${answer.status} ${answer.text}`);
  return answer as { status: number; text: string; body: any };
}

/**
 * Builds, through the API, a state with at least one row in every table a state carries
 * (a pending source with its input is added as the service writes one, its ingestion due
 * in a year on the frozen clock so that it stays pending). Answers the key to walk with.
 */
export async function populateEveryTable(emulator: Emulator): Promise<{ key: string }> {
  const { send } = await import('../../emulator/client.js');
  const made = await emulator.createWorkspace({ name: 'Every table' });
  await emulator.createWorkspace({ name: 'Another' });
  const key = made.apiKey.secret;
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    send(emulator, method, path, { key, body, ...(headers && { headers }) });
  await must(send(emulator, 'POST', `/workspaces/${made.workspaceId}/keys`, { body: { name: 'second', scopes: ['projects:read', 'landings:read'] } }), 201);
  await must(
    send(emulator, 'PUT', '/_emulator/web', {
      body: {
        pages: [
          {
            url: 'https://docs.example/hours',
            headers: { 'content-type': 'text/html' },
            body: '<html><head><title>Hours</title></head><body><p>We open at nine every day.</p></body></html>',
          },
        ],
      },
    }),
    200,
  );
  const agent = (await must(call('POST', '/v1/agents', { name: 'Aurora', identity: { businessName: 'Café', description: 'Coffee' } }), 201)).body;
  await must(call('POST', '/v1/agents', REPLAYED.body, { 'idempotency-key': REPLAYED.idemKey }), 201);
  await must(
    call('POST', '/v1/knowledge/text', {
      title: 'Hours',
      text: 'We open every day from 9:00 to 20:00 in Valencia.',
      topics: ['hours', 'visit'],
      agentId: agent.id,
    }),
    202,
  );
  await must(call('POST', '/v1/knowledge/urls', { url: 'https://docs.example/hours', topics: ['hours'] }), 202);
  await must(call('POST', '/v1/knowledge/claims', { claim: { es: 'Abrimos a las nueve.', en: 'We open at nine.' }, agentId: agent.id }), 202);
  await must(call('POST', '/v1/knowledge/uploads', file('# Menu\n\nEspresso 1.80', 'menu.md', 'text/markdown')), 202);
  await emulator.drain();
  await must(call('POST', `/v1/agents/${agent.id}/chat`, { message: 'When do you open?' }), 200);
  const project = (await must(call('POST', '/v1/projects', { name: 'Café Fuzz', slug: 'cafe-fuzz-old', locales: ['es'] }), 201)).body;
  await must(call('PUT', `/v1/projects/${project.id}/address`, { slug: 'cafe-fuzz' }), 200);
  const home = (
    await must(
      call('POST', `/v1/projects/${project.id}/pages`, { name: 'Home', kind: 'agent', path: '/', agentId: agent.id, editorial: { title: { es: 'Pregunta' } } }),
      201,
    )
  ).body;
  const doc = (
    await must(call('POST', `/v1/projects/${project.id}/pages`, { name: 'Menu', kind: 'document', path: '/menu', body: { es: '# Carta\n\nCafé' } }), 201)
  ).body;
  await must(call('POST', `/v1/pages/${home.id}/publish`), 200);
  await must(call('POST', `/v1/pages/${doc.id}/publish`), 200);
  await must(
    call('PATCH', `/v1/projects/${project.id}`, { locales: ['es', 'en'], robots: { disallow: ['/private'] }, sitemap: { extraUrls: [{ path: '/shop' }] } }),
    200,
  );
  await emulator.drain();
  await must(call('PATCH', `/v1/projects/${project.id}/theme`, { tokens: { colors: { primary: '#7a4a2b' }, radius: 'lg' } }), 200);
  await must(
    call('PATCH', `/v1/projects/${project.id}/brand`, {
      navbar: { links: [{ label: { es: 'Carta', en: 'Menu' }, href: '/menu' }] },
      footer: { text: { es: 'Hola', en: 'Hello' } },
    }),
    200,
  );
  await must(call('PUT', `/v1/projects/${project.id}/brand/logo`, file(SVG, 'logo.svg', 'image/svg+xml')), 200);
  const asset = new FormData();
  asset.set('file', new File([PNG], 'dot.png', { type: 'image/png' }));
  asset.set('key', 'hero');
  asset.set('pageId', home.id);
  await must(call('POST', '/v1/assets', asset), 201);
  return { key };
}

/** Adds a pending upload with its stored input and an ingestion job due in a year, as the service writes them. */
export function withPendingSource(doc: Doc): Doc {
  const out = structuredClone(doc);
  const source = out.tables.knowledge_sources!.find((s) => s.kind === 'upload' && s.content_type === 'text/markdown')!;
  const id = `src_${'z'.repeat(26)}`;
  const now = new Date(out.clock.value).toISOString();
  out.tables.knowledge_sources!.push({
    ...source,
    id,
    status: 'pending',
    error: null,
    lang: 'en',
    source_lang: null,
    translated: 0,
    chunk_count: 0,
    token_count: 0,
    summary: '',
    content_hash: null,
    created_at: now,
    updated_at: now,
  });
  out.tables.knowledge_inputs = [
    { source_id: id, workspace_id: source.workspace_id, content: { $bytes: Buffer.from('# Later\n\nSoon.').toString('base64') }, created_at: now },
  ];
  // A job that waits: only a re-crawl is queued for later (D-1198).
  const due = new Date(out.clock.value + 365 * 86_400_000).toISOString();
  out.tables.jobs!.push({
    id: `job_${'z'.repeat(26)}`,
    workspace_id: source.workspace_id,
    kind: 'knowledge.recrawl',
    payload: JSON.stringify({ sourceId: id, syncAt: due }),
    status: 'queued',
    run_at: due,
    attempts: 0,
    last_error: null,
    created_at: now,
    updated_at: now,
  });
  return out;
}

// ---------------------------------------------------------------------------------------
// Mutations: data only (so that fast-check shrinks them), applied to whatever value is there.

export type Mutation =
  | { op: 'value'; value: unknown }
  | { op: 'number'; value: number }
  | { op: 'text'; value: string }
  | { op: 'repeat'; times: number }
  | { op: 'truncate'; keep: number }
  | { op: 'jsonLeaf'; pick: number; value: unknown }
  | { op: 'jsonDrop'; pick: number }
  | { op: 'jsonAdd'; name: string; value: unknown }
  | { op: 'jsonText'; text: string }
  | { op: 'reference'; pick: number }
  | { op: 'bytes'; bytes: number[] }
  | { op: 'dropRow' }
  | { op: 'copyRow' }
  | { op: 'dropColumn' }
  | { op: 'addColumn'; name: string };

const odd = fc.constantFrom(
  null,
  true,
  false,
  0,
  -1,
  1,
  0.5,
  -0.0,
  2 ** 31,
  2 ** 53,
  1e17,
  1e300,
  -1e300,
  '',
  ' ',
  'x',
  '0',
  'null',
  '[]',
  '{}',
  '\u0000',
  '\ud800',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '../../etc/passwd',
  '#fff;}body{background:url(//evil.example)}',
  'HTTP/1.1 200 OK\r\n\r\n',
  [],
  {},
  [1],
  { a: 1 },
);
const smallJson = fc.oneof(odd, fc.string({ maxLength: 12 }), fc.integer({ min: -5, max: 2000 }), fc.boolean(), fc.constant(null));

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: smallJson.map((value) => ({ op: 'value' as const, value })) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.integer({ min: -3, max: 100_000 }),
        fc.double({ min: -1e18, max: 1e18, noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(2 ** 53, 8.64e15, 253_402_300_800_000),
      )
      .map((value) => ({ op: 'number' as const, value })),
  },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.string({ maxLength: 20 }),
        fc.string({ unit: 'grapheme', maxLength: 8 }),
        fc.constantFrom('ES', 'en ', 'published', 'running', 'queued', 'image/svg+xml', 'text/html', '#FFFFFF', '#abc'),
      )
      .map((value) => ({ op: 'text' as const, value })),
  },
  { weight: 1, arbitrary: fc.constantFrom(2, 5, 41, 81, 200, 2001).map((times) => ({ op: 'repeat' as const, times })) },
  { weight: 1, arbitrary: fc.nat(40).map((keep) => ({ op: 'truncate' as const, keep })) },
  { weight: 4, arbitrary: fc.record({ pick: fc.nat(), value: smallJson }).map((m) => ({ op: 'jsonLeaf' as const, ...m })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ op: 'jsonDrop' as const, pick })) },
  {
    weight: 1,
    arbitrary: fc.record({ name: fc.constantFrom('extra', '__proto__', 'constructor'), value: smallJson }).map((m) => ({ op: 'jsonAdd' as const, ...m })),
  },
  { weight: 1, arbitrary: fc.constantFrom('{', 'null', '[]', '{}', '"x"', '[1,2]', '{"a":', '1e999').map((text) => ({ op: 'jsonText' as const, text })) },
  { weight: 3, arbitrary: fc.nat().map((pick) => ({ op: 'reference' as const, pick })) },
  { weight: 1, arbitrary: fc.array(fc.nat(255), { maxLength: 40 }).map((bytes) => ({ op: 'bytes' as const, bytes })) },
  { weight: 1, arbitrary: fc.constantFrom({ op: 'dropRow' as const }, { op: 'copyRow' as const }, { op: 'dropColumn' as const }) },
  { weight: 1, arbitrary: fc.constantFrom('extra', 'id2').map((name) => ({ op: 'addColumn' as const, name })) },
);

/** Where a mutation lands: a cell of a row (table, row, column), or the clock or id generator. */
export interface Target {
  table: string;
  row: number;
  column: string;
}

/** Every cell of a document, in a stable order. */
export function cellsOf(doc: Doc): Target[] {
  const cells: Target[] = [
    { table: '(clock)', row: 0, column: 'frozen' },
    { table: '(clock)', row: 0, column: 'value' },
    { table: '(ids)', row: 0, column: 'time' },
    { table: '(ids)', row: 0, column: 'random' },
    { table: '(ids)', row: 0, column: 'draws' },
  ];
  for (const [table, rows] of Object.entries(doc.tables)) rows.forEach((row, i) => Object.keys(row).forEach((column) => cells.push({ table, row: i, column })));
  return cells;
}

function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [path];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  const out: (string | number)[][] = [path];
  for (const [k, v] of entries) out.push(...leaves(v, [...path, k]));
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown, drop = false): unknown {
  if (path.length === 0) return value;
  const parent = path.slice(0, -1).reduce<any>((at, k) => at[k], root);
  const last = path[path.length - 1]!;
  if (drop) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else parent[last] = value;
  return root;
}

function parseJson(text: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof text !== 'string') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Applies one mutation to a copy of `doc` (the base is never changed). */
export function mutate(doc: Doc, at: number, m: Mutation): Doc {
  const out = structuredClone(doc);
  const cells = cellsOf(out);
  const target = cells[at % cells.length]!;
  const holder: Record<string, unknown> =
    target.table === '(clock)'
      ? (out.clock as unknown as Row)
      : target.table === '(ids)'
        ? (out.ids as unknown as Row)
        : out.tables[target.table]![target.row]!;
  const current = holder[target.column];
  const ids = cells
    .filter((c) => !c.table.startsWith('('))
    .map((c) => out.tables[c.table]![c.row]![c.column])
    .filter((v): v is string => typeof v === 'string' && /^[a-z]{2,3}_[0-9a-z_]+$/.test(v));
  const set = (value: unknown) => {
    holder[target.column] = value;
  };
  switch (m.op) {
    case 'value':
    case 'number':
    case 'text':
      set(m.value);
      break;
    case 'repeat':
      set(typeof current === 'string' ? current.repeat(m.times) : typeof current === 'number' ? current * m.times : current);
      break;
    case 'truncate':
      set(typeof current === 'string' ? current.slice(0, m.keep) : current);
      break;
    case 'reference':
      set(ids.length ? ids[m.pick % ids.length] : current);
      break;
    case 'bytes':
      set({ $bytes: Buffer.from(m.bytes).toString('base64') });
      break;
    case 'jsonText':
      set(m.text);
      break;
    case 'jsonLeaf':
    case 'jsonDrop':
    case 'jsonAdd': {
      const parsed = parseJson(current);
      if (!parsed.ok) {
        set(m.op === 'jsonLeaf' ? m.value : current);
        break;
      }
      let value = parsed.value;
      if (m.op === 'jsonAdd') {
        if (value !== null && typeof value === 'object' && !Array.isArray(value))
          Object.defineProperty(value, m.name, { value: m.value, enumerable: true, configurable: true, writable: true });
      } else {
        const paths = leaves(value).filter((p) => m.op === 'jsonLeaf' || p.length > 0);
        const path = paths[m.pick % paths.length];
        if (path) value = setAt(value, path, m.op === 'jsonLeaf' ? m.value : undefined, m.op === 'jsonDrop');
      }
      set(JSON.stringify(value));
      break;
    }
    case 'dropRow':
    case 'copyRow': {
      if (target.table.startsWith('(')) break;
      const rows = out.tables[target.table]!;
      if (m.op === 'dropRow') rows.splice(target.row, 1);
      else rows.push(structuredClone(rows[target.row]!));
      break;
    }
    case 'dropColumn':
      delete holder[target.column];
      break;
    case 'addColumn':
      holder[m.name] = 'x';
      break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Every route, and what a well-formed answer is.

/** One request of the walk; `key`: sent with the walk's key. */
export interface Step {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  key?: boolean;
  /** The OpenAPI operation it exercises (`GET /v1/agents/{agentId}`), or `site`. */
  operation: string;
  /** The path is the signed URL of this asset, asked for first. */
  signedAsset?: string;
  /**
   * Work in worker threads or background jobs that a state import ends (uploads, brand
   * files, knowledge adds), or a reset, which replaces the state it would check: walked
   * in some accepted cases only (see the test).
   */
  heavy?: boolean;
}

const first = (doc: Doc, table: string, where: (r: Row) => boolean = () => true) => (doc.tables[table] ?? []).find(where);
const idOf = (row: Row | undefined, column = 'id', fallback = 'none_0') => (row && typeof row[column] === 'string' ? (row[column] as string) : fallback);

/**
 * Every operation of the OpenAPI description and the hosted site's files, as requests
 * with ids taken from the state: reads first, then writes, then what deletes. The state
 * document itself and `GET /v1/openapi.json` (which reads no state) are walked once per
 * property by the test, not per case.
 */
export function walkOf(doc: Doc, workspaceId: string, replayAgentPath = '/v1/agents'): Step[] {
  const ws = workspaceId;
  const agent = idOf(
    first(doc, 'agents', (a) => a.workspace_id === ws && (doc.tables.pages ?? []).some((p) => p.agent_id === a.id)) ??
      first(doc, 'agents', (a) => a.workspace_id === ws),
  );
  const source = idOf(first(doc, 'knowledge_sources', (s) => s.workspace_id === ws));
  const topic = (() => {
    try {
      return (JSON.parse(String(first(doc, 'knowledge_sources', (s) => s.workspace_id === ws && s.topics !== '[]')?.topics ?? '[]')) as string[])[0] ?? 'hours';
    } catch {
      return 'hours';
    }
  })();
  const projectRow = first(doc, 'projects', (p) => p.workspace_id === ws);
  const project = idOf(projectRow);
  const page = idOf(first(doc, 'pages', (p) => p.project_id === project && p.path !== '/') ?? first(doc, 'pages', (p) => p.project_id === project));
  const asset = idOf(first(doc, 'assets', (a) => a.workspace_id === ws));
  const otherKey = idOf(first(doc, 'api_keys', (k) => k.workspace_id === ws && k.name !== 'default' && k.name !== 'demo-full'));
  const text = { title: 'Fuzz', text: 'Fuzz text about opening hours.', topics: ['fuzz'] };
  const k = (method: string, path: string, operation: string, body?: unknown, headers?: Record<string, string>): Step => ({
    method,
    path,
    operation,
    key: true,
    ...(body !== undefined && { body }),
    ...(headers && { headers }),
  });
  const cp = (method: string, path: string, operation: string, body?: unknown): Step => ({ method, path, operation, ...(body !== undefined && { body }) });
  const heavy = (step: Step): Step => ({ ...step, heavy: true });
  const site = (method: string, path: string, body?: unknown): Step => ({
    method,
    path: `http://${String(projectRow?.slug ?? 'none')}.localhost${path}`,
    operation: 'site',
    ...(body !== undefined && { body }),
  });
  return [
    cp('GET', '/_emulator/health', 'GET /_emulator/health'),
    cp('GET', '/_emulator/memory', 'GET /_emulator/memory'),
    cp('GET', '/_emulator/workspaces', 'GET /_emulator/workspaces'),
    cp('GET', `/_emulator/workspaces/${ws}`, 'GET /_emulator/workspaces/{workspaceId}'),
    cp('GET', `/_emulator/workspaces/${ws}/resources`, 'GET /_emulator/workspaces/{workspaceId}/resources'),
    cp('GET', `/_emulator/workspaces/${ws}/lexicon`, 'GET /_emulator/workspaces/{workspaceId}/lexicon'),
    cp('GET', '/_emulator/fixture-keys', 'GET /_emulator/fixture-keys'),
    cp('GET', '/_emulator/clock', 'GET /_emulator/clock'),
    cp('GET', '/_emulator/queue', 'GET /_emulator/queue'),
    cp('GET', '/_emulator/web', 'GET /_emulator/web'),
    cp('GET', '/_emulator/faults', 'GET /_emulator/faults'),
    cp('GET', '/_emulator/requests?limit=5', 'GET /_emulator/requests'),
    cp('GET', '/', 'GET /'),
    cp('GET', '/docs/errors', 'GET /docs/errors'),
    cp('GET', '/docs/errors/svc.service.unavailable', 'GET /docs/errors/{code}'),
    cp('GET', `/workspaces/${ws}/keys`, 'GET /workspaces/{tenantId}/keys'),
    k('GET', '/v1/me', 'GET /v1/me'),
    k('GET', '/v1/usage', 'GET /v1/usage'),
    k('GET', '/v1/agents', 'GET /v1/agents'),
    k('GET', `/v1/agents/${agent}`, 'GET /v1/agents/{agentId}'),
    k('GET', `/v1/agents/${agent}/theme`, 'GET /v1/agents/{agentId}/theme'),
    k('GET', '/v1/knowledge/sources', 'GET /v1/knowledge/sources'),
    k('GET', `/v1/knowledge/sources/${source}`, 'GET /v1/knowledge/sources/{sourceId}'),
    k('GET', `/v1/knowledge/topics?agentId=${agent}`, 'GET /v1/knowledge/topics'),
    k('GET', '/v1/knowledge/topics', 'GET /v1/knowledge/topics'),
    k('GET', '/v1/projects', 'GET /v1/projects'),
    k('GET', `/v1/projects/${project}`, 'GET /v1/projects/{projectId}'),
    k('GET', `/v1/projects/${project}/pages`, 'GET /v1/projects/{projectId}/pages'),
    k('GET', `/v1/pages/${page}`, 'GET /v1/pages/{pageId}'),
    k('GET', `/v1/projects/${project}/theme`, 'GET /v1/projects/{projectId}/theme'),
    k('GET', `/v1/projects/${project}/brand`, 'GET /v1/projects/{projectId}/brand'),
    k('GET', '/v1/assets', 'GET /v1/assets'),
    k('GET', `/v1/assets/${asset}`, 'GET /v1/assets/{assetId}'),
    { method: 'GET', path: `/files/${asset}`, operation: 'GET /files/{assetId}', signedAsset: asset },
    site('GET', '/'),
    site('GET', '/menu'),
    site('GET', '/?lang=en'),
    site('GET', '/robots.txt'),
    site('GET', '/sitemap.xml'),
    site('GET', '/llms.txt'),
    site('GET', '/_site/theme.css'),
    site('GET', '/_site/widget.js'),
    site('POST', '/_site/chat', { path: '/', message: 'When do you open?' }),
    k('POST', `/v1/agents/${agent}/query`, 'POST /v1/agents/{agentId}/query', { query: 'when do you open', topics: [topic] }),
    k('POST', `/v1/agents/${agent}/chat`, 'POST /v1/agents/{agentId}/chat', { message: 'When do you open?' }),
    k('POST', replayAgentPath, 'POST /v1/agents', REPLAYED.body, { 'idempotency-key': REPLAYED.idemKey }),
    cp('POST', `/_emulator/workspaces/${ws}/agents/${agent}/chat`, 'POST /_emulator/workspaces/{workspaceId}/agents/{agentId}/chat', { message: 'Hello?' }),
    heavy(cp('POST', '/_emulator/queue/drain', 'POST /_emulator/queue/drain')),
    cp('POST', '/_emulator/clock', 'POST /_emulator/clock', { advanceMs: 0 }),
    cp('PATCH', `/_emulator/workspaces/${ws}`, 'PATCH /_emulator/workspaces/{workspaceId}', { rateLimit: { limit: 100_000 } }),
    cp('POST', '/_emulator/workspaces', 'POST /_emulator/workspaces', { name: 'Fuzz' }),
    cp('POST', '/_emulator/workspaces/keyless', 'POST /_emulator/workspaces/keyless', { name: 'Keyless' }),
    cp('POST', '/_emulator/faults', 'POST /_emulator/faults', { match: { path: '/v1/nothing-here' }, status: 503 }),
    cp('DELETE', '/_emulator/faults/flt_00000000000000000000000000', 'DELETE /_emulator/faults/{faultId}'),
    cp('DELETE', '/_emulator/faults', 'DELETE /_emulator/faults'),
    cp('PUT', '/_emulator/web', 'PUT /_emulator/web', { pages: [] }),
    cp('POST', `/workspaces/${ws}/keys`, 'POST /workspaces/{tenantId}/keys', { name: 'walk', scopes: ['projects:read'] }),
    k('POST', '/v1/agents', 'POST /v1/agents', { name: 'Walker', identity: { businessName: 'W' } }),
    k('PATCH', `/v1/agents/${agent}`, 'PATCH /v1/agents/{agentId}', { name: 'Renamed' }),
    k('PATCH', `/v1/agents/${agent}/theme`, 'PATCH /v1/agents/{agentId}/theme', { tokens: null }),
    heavy(k('POST', '/v1/knowledge/text', 'POST /v1/knowledge/text', text)),
    heavy(k('POST', '/v1/knowledge/urls', 'POST /v1/knowledge/urls', { url: 'https://docs.example/other' })),
    heavy(k('POST', '/v1/knowledge/claims', 'POST /v1/knowledge/claims', { claim: { es: 'Sí.', en: 'Yes.' } })),
    heavy(k('POST', '/v1/knowledge/uploads', 'POST /v1/knowledge/uploads', 'upload')),
    k('POST', '/v1/knowledge/topics/merge', 'POST /v1/knowledge/topics/merge', { from: topic, into: 'merged', agentId: agent }),
    k('POST', '/v1/projects', 'POST /v1/projects', { name: 'Walk site' }),
    k('PATCH', `/v1/projects/${project}`, 'PATCH /v1/projects/{projectId}', { robots: { raw: 'Crawl-delay: 1' }, locales: ['en', 'es'] }),
    k('POST', `/v1/projects/${project}/pages`, 'POST /v1/projects/{projectId}/pages', { name: 'Walk', kind: 'document', path: '/walk', body: { en: 'Hi' } }),
    k('PATCH', `/v1/pages/${page}`, 'PATCH /v1/pages/{pageId}', { name: 'Patched', seo: { title: { en: 'T' } } }),
    k('POST', `/v1/pages/${page}/unpublish`, 'POST /v1/pages/{pageId}/unpublish'),
    k('POST', `/v1/pages/${page}/publish`, 'POST /v1/pages/{pageId}/publish'),
    k('PATCH', `/v1/projects/${project}/theme`, 'PATCH /v1/projects/{projectId}/theme', { tokens: { colors: { accent: '#123456' } } }),
    k('PATCH', `/v1/projects/${project}/brand`, 'PATCH /v1/projects/{projectId}/brand', { footer: { links: [] } }),
    heavy(k('PUT', `/v1/projects/${project}/brand/favicon`, 'PUT /v1/projects/{projectId}/brand/{slot}', 'favicon')),
    heavy(k('POST', '/v1/assets', 'POST /v1/assets', 'asset')),
    k('PUT', `/v1/projects/${project}/address`, 'PUT /v1/projects/{projectId}/address', { slug: 'walked-away' }),
    k('DELETE', `/v1/projects/${project}/brand/logo`, 'DELETE /v1/projects/{projectId}/brand/{slot}'),
    k('DELETE', `/v1/assets/${asset}`, 'DELETE /v1/assets/{assetId}'),
    k('DELETE', `/v1/pages/${page}`, 'DELETE /v1/pages/{pageId}'),
    k('DELETE', `/v1/knowledge/sources/${source}`, 'DELETE /v1/knowledge/sources/{sourceId}'),
    k('DELETE', `/v1/agents/${agent}`, 'DELETE /v1/agents/{agentId}'),
    k('DELETE', `/v1/projects/${project}`, 'DELETE /v1/projects/{projectId}'),
    cp('DELETE', `/workspaces/${ws}/keys/${otherKey}`, 'DELETE /workspaces/{tenantId}/keys/{keyId}'),
    cp('DELETE', `/_emulator/workspaces/${ws}`, 'DELETE /_emulator/workspaces/{workspaceId}'),
    heavy(cp('POST', '/_emulator/reset', 'POST /_emulator/reset')),
  ];
}

/** The body a step sends: JSON, or one of the files it names. */
export function stepBody(step: Step): unknown {
  if (step.body === 'upload') return file('# Walk\n\nA walked document.', 'walk.md', 'text/markdown');
  if (step.body === 'favicon') return file(SVG, 'favicon.svg', 'image/svg+xml');
  if (step.body === 'asset') return file(PNG, 'walk.png', 'image/png');
  return step.body;
}

/** Why an answer is not a well-formed HTTP message (undefined when it is). */
export function malformed(status: number, headers: Headers, body: Uint8Array): string | undefined {
  if (status < 200 || status > 599) return `status ${status}`;
  const length = headers.get('content-length');
  if (length !== null && Number(length) !== body.byteLength) return `content-length ${length} for ${body.byteLength} bytes`;
  if (headers.get('transfer-encoding') !== null && length !== null) return 'both content-length and transfer-encoding';
  if ((status === 204 || status === 304) && body.byteLength > 0) return `${status} with a body`;
  if (body.byteLength > 0 && !headers.get('content-type')) return 'a body without a content type';
  if (headers.get('set-cookie') !== null) return 'a set-cookie header';
  return undefined;
}
