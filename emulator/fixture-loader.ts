import { SCOPES } from '../src/platform/scopes.js';
import { ServiceError } from '../src/platform/service-error.js';
import type { Service } from '../src/service.js';
import { createClient, type ApiResponse, type Client } from './client.js';
import { fileBytes, FixtureError, type FileSpec, type Fixture } from './fixtures.js';

/** What loading a fixture needs of the emulator: its service, its HTTP face, its web and journal. */
export interface FixtureHost {
  readonly service: Service;
  /** Answers a request in process (fixtures go through the public API). */
  fetch(request: Request): Promise<Response>;
  setWeb(definition: unknown): Promise<unknown>;
  drain(): Promise<number>;
  readonly journal: { clear(): void | Promise<void> };
}

export interface LoadedKey {
  workspaceId: string;
  workspace: string;
  name: string;
  scopes: string[];
  secret: string;
}

type Body = Record<string, unknown>;

function without(body: Body, ...keys: string[]): Body {
  const out = { ...body };
  for (const key of keys) delete out[key];
  return out;
}

/**
 * Loads a fixture through the public API, as a client would, so that every rule of
 * the service applies to fixtures too. A temporary full-scope key does the work and
 * is erased afterwards; the activity and journal of the load are forgotten.
 */
export async function loadFixture(emulator: FixtureHost, fixture: Fixture): Promise<LoadedKey[]> {
  const service = emulator.service;
  // What the loader reads of an answer: a created resource's id (and a page's path), or a problem.
  type Read = { id: string; path?: string };
  type Problem = { code?: string; detail?: string; errors?: unknown };
  const expect = async (where: string, pending: Promise<ApiResponse>): Promise<ApiResponse<Read>> => {
    const res = await pending;
    if (res.status >= 300) {
      const problem = (res.body ?? {}) as Problem;
      const details = problem.errors ? ` ${JSON.stringify(problem.errors)}` : '';
      throw new FixtureError(`fixture ${where}: answered ${res.status} ${problem.code ?? ''} ${problem.detail ?? res.text}${details}`.trim());
    }
    return res as ApiResponse<Read>;
  };
  const upload = (api: Client, path: string, file: FileSpec, fields: Body, method = 'POST') => {
    const form = new FormData();
    form.set('file', new File([fileBytes(file, fixture.baseDir)], file.name, { type: file.contentType }));
    for (const [k, value] of Object.entries(fields)) if (value !== undefined) form.set(k, typeof value === 'string' ? value : JSON.stringify(value));
    return method === 'PUT' ? api.put(path, form) : api.post(path, form);
  };

  // The operator's own call, in process: no admin token, Host or origin check applies.
  if (fixture.web) {
    await emulator.setWeb(fixture.web).catch((error: unknown) => {
      if (!(error instanceof ServiceError)) throw error;
      const details = error.errors ? ` ${JSON.stringify(error.errors)}` : '';
      throw new FixtureError(`fixture web: ${error.code} ${error.message}${details}`);
    });
  }
  const keys: LoadedKey[] = [];
  const loaded: string[] = [];
  for (const [wi, w] of fixture.workspaces.entries()) {
    const at = `workspaces.${wi}`;
    const ws = await service.workspaces.create({ name: w.name, plan: w.plan });
    loaded.push(ws.id);
    const loader = await service.auth.createKey(ws.id, { name: 'fixture-loader', scopes: [...SCOPES], env: 'test' });
    const api = createClient(emulator, loader.secret);
    const agents = new Map<string, string>();
    const agentId = (ref: string | undefined, where: string) => {
      if (ref === undefined) return undefined;
      const id = agents.get(ref);
      if (!id) throw new FixtureError(`fixture ${where}: no agent with ref "${ref}"`);
      return id;
    };

    for (const [i, a] of w.agents.entries()) {
      const res = await expect(`${at}.agents.${i}`, api.post('/v1/agents', without(a, 'ref')));
      agents.set(a.ref, res.body.id);
    }
    for (const [i, k] of w.knowledge.entries()) {
      const where = `${at}.knowledge.${i}`;
      const owner = agentId(k.agent, where);
      if (k.kind === 'upload') {
        await expect(where, upload(api, '/v1/knowledge/uploads', k.file, { title: k.title, topics: k.topics, agentId: owner }));
      } else {
        const path = { text: '/v1/knowledge/text', url: '/v1/knowledge/urls', claim: '/v1/knowledge/claims' }[k.kind];
        await expect(where, api.post(path, { ...without(k, 'kind', 'agent'), ...(owner && { agentId: owner }) }));
      }
    }
    for (const [pi, p] of w.projects.entries()) {
      const where = `${at}.projects.${pi}`;
      const project = (await expect(where, api.post('/v1/projects', without(p, 'theme', 'brand', 'pages')))).body;
      if (p.theme) await expect(`${where}.theme`, api.patch(`/v1/projects/${project.id}/theme`, { tokens: p.theme }));
      for (const slot of ['logo', 'logo-dark', 'favicon'] as const) {
        const file = p.brand?.[slot];
        if (file) await expect(`${where}.brand.${slot}`, upload(api, `/v1/projects/${project.id}/brand/${slot}`, file, {}, 'PUT'));
      }
      if (p.brand?.navbar || p.brand?.footer) {
        await expect(`${where}.brand`, api.patch(`/v1/projects/${project.id}/brand`, { ...(p.brand.navbar && { navbar: p.brand.navbar }), ...(p.brand.footer && { footer: p.brand.footer }) }));
      }
      const toPublish: { id: string; root: boolean; where: string }[] = [];
      for (const [gi, page] of (p.pages ?? []).entries()) {
        const pw = `${where}.pages.${gi}`;
        const owner = agentId(page.agent, pw);
        const created = (await expect(pw, api.post(`/v1/projects/${project.id}/pages`, { ...without(page, 'agent', 'publish'), ...(owner && { agentId: owner }) }))).body;
        if (page.publish) toPublish.push({ id: created.id, root: created.path === '/', where: pw });
      }
      // The home page goes live first: no other page of a site may be live without it.
      toPublish.sort((a, b) => Number(b.root) - Number(a.root));
      for (const page of toPublish) await expect(`${page.where}.publish`, api.post(`/v1/pages/${page.id}/publish`));
    }

    await service.db.deleteFrom('api_keys').where('id', '=', loader.id).execute();
    service.auth.invalidate();
    for (const k of w.keys) {
      const scopes = k.scopes === 'all' ? [...SCOPES] : k.scopes;
      const created = await service.auth.createKey(ws.id, { name: k.name, scopes, env: k.env }, { secret: k.secret });
      keys.push({ workspaceId: ws.id, workspace: w.name, name: k.name, scopes, secret: created.secret });
    }
    if (w.settings) await service.workspaces.update(ws.id, w.settings);
  }

  await emulator.drain();
  // Loading is not the workspace's own activity.
  for (const id of loaded) service.workspaces.activity.forget(id);
  if (loaded.length) await service.db.deleteFrom('activity').where('workspace_id', 'in', loaded).execute();
  await service.rateLimiter.clear();
  if (loaded.length) await service.db.deleteFrom('idempotency').where('workspace_id', 'in', loaded).execute();
  await emulator.journal.clear();
  return keys;
}
