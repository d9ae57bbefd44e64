import { describe, expect, it } from 'vitest';
import { fileEmulator } from '../support/emulator.js';
import { site } from '../pages/support.js';

const emulator = await fileEmulator();
const { projects, pages, theme } = emulator.service;

describe('reads the hosted sites are rendered from', () => {
  it('projects.getBySlug finds a site by its address in force, from any workspace, in any case', async () => {
    const s = await site(emulator);
    const found = await projects.getBySlug(s.project.slug.toUpperCase());
    expect(found).toEqual({ workspaceId: s.workspaceId, project: s.project });
    await s.api.put(`/v1/projects/${s.projectId}/address`, { slug: `${s.project.slug}-moved` });
    expect(await projects.getBySlug(s.project.slug)).toBeUndefined();
    expect((await projects.getBySlug(`${s.project.slug}-moved`))?.project.id).toBe(s.projectId);
    await s.api.delete(`/v1/projects/${s.projectId}`);
    expect(await projects.getBySlug(`${s.project.slug}-moved`)).toBeUndefined();
  });

  it('pages.getPublishedByPath and listPublished see live pages only, paths case folded', async () => {
    const s = await site(emulator);
    const root = await s.doc('/', { body: { en: 'Home' } });
    const about = await s.doc('/about/team', { body: { en: 'Team' } });
    await s.doc('/draft', { body: { en: 'Draft' } });
    await s.api.post(`/v1/pages/${about.id}/publish`);
    await s.api.post(`/v1/pages/${root.id}/publish`);
    expect((await pages.getPublishedByPath(s.projectId, '/About/Team'))?.id).toBe(about.id);
    expect(await pages.getPublishedByPath(s.projectId, '/draft')).toBeUndefined();
    expect(await pages.getPublishedByPath(s.projectId, '/../etc')).toBeUndefined();
    expect((await pages.listPublished(s.projectId)).map((p) => p.path)).toEqual(['/', '/about/team']);
    await s.api.post(`/v1/pages/${about.id}/unpublish`);
    expect(await pages.getPublishedByPath(s.projectId, '/about/team')).toBeUndefined();
  });

  it('theme.getTheme answers the tokens in force and the CSS variables', async () => {
    const s = await site(emulator);
    await s.api.patch(`/v1/projects/${s.projectId}/theme`, { tokens: { colors: { surface: '#FAFAFA' } } });
    const t = await theme.getTheme(s.workspaceId, s.projectId);
    expect(t.customized).toBe(true);
    expect(t.cssVariables['--color-surface']).toBe('#fafafa');
    await expect(theme.getTheme('ws_other', s.projectId)).rejects.toMatchObject({ code: 'svc.project.not_found' });
  });

  it('projects.count and pages.count follow creations and deletions (usage)', async () => {
    const s = await site(emulator);
    await s.doc('/');
    await s.doc('/b');
    expect(await projects.count(s.workspaceId)).toBe(1);
    expect(await pages.count(s.workspaceId)).toBe(2);
    await s.api.delete(`/v1/projects/${s.projectId}`);
    expect([await projects.count(s.workspaceId), await pages.count(s.workspaceId)]).toEqual([0, 0]);
  });
});
