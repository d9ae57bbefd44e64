import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DatabaseOptions } from '../../../src/db/database.js';
import { createEmulator, type Emulator } from '../../../emulator/emulator.js';
import { client, walk } from '../../support/client.js';
import { quiet } from '../../support/emulator.js';

/** Projects, slugs, pages, theme and translation on one backend. */
export function sitesCases(db: () => DatabaseOptions): void {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ db: db(), seed: 3, log: quiet });
  });
  afterAll(() => emulator.close());

  const newWorkspace = async () => client(emulator, (await emulator.createWorkspace()).apiKey.secret);

  it('one slug, many racing workspaces: exactly one wins; retired slugs are held for their owner', async () => {
    const racers = await Promise.all([1, 2, 3, 4, 5, 6].map(() => newWorkspace()));
    const results = await Promise.all(racers.map((api) => api.post('/v1/projects', { name: 'Race', slug: 'store-race' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const winner = racers[results.findIndex((r) => r.status === 201)]!;
    const loser = racers[results.findIndex((r) => r.status === 409)]!;
    expect(results.find((r) => r.status === 409)!.body.errors).toEqual([{ field: 'slug', reason: 'taken', suggestion: 'store-race-2' }]);

    const project = results.find((r) => r.status === 201)!.body;
    expect((await winner.put(`/v1/projects/${project.id}/address`, { slug: 'store-moved' })).body.slug).toBe('store-moved');
    expect((await loser.post('/v1/projects', { name: 'Late', slug: 'store-race' })).status).toBe(409);
    expect((await winner.put(`/v1/projects/${project.id}/address`, { slug: 'store-race' })).body.slug).toBe('store-race');
    expect((await winner.delete(`/v1/projects/${project.id}`)).body).toEqual({ projectId: project.id, pagesDeleted: 0 });
    expect((await loser.post('/v1/projects', { name: 'Late', slug: 'store-race' })).status).toBe(201);
    expect((await loser.post('/v1/projects', { name: 'Later', slug: 'store-moved' })).status).toBe(201);
  });

  it('pages: one path per site under a race, the root rule, agents held, deletion cascades', async () => {
    const api = await newWorkspace();
    const site = (await api.post('/v1/projects', { name: 'Store pages', slug: 'store-pages' })).body;
    const agent = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body;
    const pages = `/v1/projects/${site.id}/pages`;
    const racing = await Promise.all([1, 2, 3, 4].map(() => api.post(pages, { name: 'Home', kind: 'agent', path: '/', agentId: agent.id })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const root = racing.find((r) => r.status === 201)!.body;
    const about = (await api.post(pages, { name: 'About', kind: 'document', path: '/About', body: { en: 'About' } })).body;
    await api.post(`/v1/pages/${root.id}/publish`);
    await api.post(`/v1/pages/${about.id}/publish`);
    expect((await api.post(`/v1/pages/${root.id}/unpublish`)).body.code).toBe('svc.page.root_required');
    expect((await api.delete(`/v1/agents/${agent.id}`)).body.errors).toEqual([{ field: `pages.${root.id}`, reason: 'this page answers with the agent' }]);
    expect((await walk(api, `${pages}?status=published`)).map((p) => p.path)).toEqual(['/about', '/']);
    expect((await api.get(`/v1/projects/${site.id}`)).body.llmsTxt.text).toBe('# Store pages\n\n## Pages\n\n- [Home](/)\n- [About](/about)\n');
    expect((await api.delete(`/v1/projects/${site.id}`)).body).toEqual({ projectId: site.id, pagesDeleted: 2 });
    expect((await api.delete(`/v1/agents/${agent.id}`)).status).toBe(200);
  });

  it('translation on locale add and the theme upsert behave the same', async () => {
    const api = await newWorkspace();
    const site = (await api.post('/v1/projects', { name: 'Store i18n', slug: 'store-i18n', locales: ['es'] })).body;
    const page = (await api.post(`/v1/projects/${site.id}/pages`, { name: 'Inicio', kind: 'document', path: '/', body: { es: '# Hola\n\nBienvenidos' } })).body;
    await api.patch(`/v1/projects/${site.id}`, { locales: ['es', 'en'] });
    expect(await emulator.drain()).toBeGreaterThanOrEqual(0);
    expect((await api.get(`/v1/pages/${page.id}`)).body.body).toEqual({ es: '# Hola\n\nBienvenidos', en: '# [en] Hola\n\n[en] Bienvenidos' });
    const theme = `/v1/projects/${site.id}/theme`;
    await api.patch(theme, { tokens: { colors: { primary: '#000000' } } });
    const second = await api.patch(theme, { tokens: { radius: 'lg' } });
    expect(second.body).toMatchObject({ tokens: { colors: { primary: '#000000' }, radius: 'lg' }, customized: true });
    expect((await api.get(theme)).body).toEqual(second.body);
  });

  it('exports and re-imports sites to the same bytes, constraints included', async () => {
    const first = JSON.stringify(await emulator.exportState());
    expect(first).toContain('store-race');
    await emulator.importState(JSON.parse(first));
    expect(JSON.stringify(await emulator.exportState())).toBe(first);
    const api = await newWorkspace();
    expect((await api.post('/v1/projects', { name: 'Again', slug: 'store-race' })).body.code).toBe('svc.project.slug_taken');
  });
}
