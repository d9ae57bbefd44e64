import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/platform/scopes.js';
import { client } from '../support/client.js';
import { fileEmulator, workspace } from '../support/emulator.js';
import { expectMatchesOpenApi } from '../support/openapi.js';

const emulator = await fileEmulator();
const doc = emulator.openapi.document() as Parameters<typeof expectMatchesOpenApi>[0];
const control = client(emulator);

const DEFAULT_TOKENS = {
  colors: { primary: '#4f46e5', accent: '#f59e0b', surface: '#ffffff', ink: '#111827', muted: '#6b7280' },
  typography: { heading: 'inter', body: 'inter' },
  radius: 'md',
};
const TYPEFACES = [
  'inter',
  'roboto',
  'open-sans',
  'lato',
  'montserrat',
  'poppins',
  'playfair-display',
  'merriweather',
  'lora',
  'space-grotesk',
  'dm-sans',
  'jetbrains-mono',
  'system-ui',
];
const RADII = ['none', 'sm', 'md', 'lg', 'xl', 'full'];

let n = 0;
async function themed(scopes?: Scope[]) {
  const ws = await workspace(emulator);
  const project = (await ws.api.post('/v1/projects', { name: 'Site', slug: `theme-${++n}-${process.pid}` })).body;
  const path = `/v1/projects/${project.id}/theme`;
  if (!scopes) return { ...ws, project, path, api: ws.api };
  const key = (await control.post(`/workspaces/${ws.workspaceId}/keys`, { name: 'scoped', scopes })).body.secret;
  return { ...ws, project, path, api: client(emulator, key) };
}

describe('GET /v1/projects/{id}/theme', () => {
  it('answers the defaults, their CSS variables and customized: false', async () => {
    const { api, path, project } = await themed();
    const res = await api.get(path);
    expect(res.status).toBe(200);
    expectMatchesOpenApi(doc, 'GET', '/v1/projects/{projectId}/theme', 200, res.body);
    expect(res.body).toEqual({
      tokens: DEFAULT_TOKENS,
      cssVariables: {
        '--color-primary': '#4f46e5',
        '--color-accent': '#f59e0b',
        '--color-surface': '#ffffff',
        '--color-ink': '#111827',
        '--color-muted': '#6b7280',
        '--font-heading': "'Inter', ui-sans-serif, system-ui, sans-serif",
        '--font-body': "'Inter', ui-sans-serif, system-ui, sans-serif",
        '--radius': '0.375rem',
      },
      customized: false,
      updatedAt: project.createdAt,
    });
  });

  it('an unknown or foreign project is 404 svc.project.not_found', async () => {
    const a = await themed();
    const b = await workspace(emulator);
    for (const res of [await b.api.get(a.path), await b.api.patch(a.path, { tokens: { radius: 'sm' } }), await a.api.get('/v1/projects/prj_missing/theme')]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('svc.project.not_found');
    }
    expect((await a.api.get(a.path)).body.customized).toBe(false);
  });
});

describe('PATCH /v1/projects/{id}/theme', () => {
  it('merges a partial patch onto the theme in force, stores hex lowercase and marks it customized', async () => {
    const { api, path } = await themed();
    await emulator.clock.advance(1000);
    const first = await api.patch(path, { tokens: { colors: { primary: '#ABCDEF' } } });
    expect(first.status).toBe(200);
    expectMatchesOpenApi(doc, 'PATCH', '/v1/projects/{projectId}/theme', 200, first.body);
    expect(first.body.tokens).toEqual({ ...DEFAULT_TOKENS, colors: { ...DEFAULT_TOKENS.colors, primary: '#abcdef' } });
    expect(first.body.cssVariables['--color-primary']).toBe('#abcdef');
    expect(first.body.customized).toBe(true);
    const second = await api.patch(path, { tokens: { typography: { heading: 'playfair-display' }, radius: 'full' } });
    expect(second.body.tokens).toEqual({
      colors: { ...DEFAULT_TOKENS.colors, primary: '#abcdef' },
      typography: { heading: 'playfair-display', body: 'inter' },
      radius: 'full',
    });
    expect(second.body.cssVariables).toMatchObject({
      '--font-heading': "'Playfair Display', ui-serif, Georgia, serif",
      '--font-body': "'Inter', ui-sans-serif, system-ui, sans-serif",
      '--radius': '9999px',
    });
    expect((await api.get(path)).body).toEqual(second.body);
  });

  it('tokens: null resets to the defaults; an empty patch keeps the tokens and counts as customized', async () => {
    const { api, path } = await themed();
    await api.patch(path, { tokens: { radius: 'none', colors: { ink: '#000000' } } });
    const reset = await api.patch(path, { tokens: null });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ tokens: DEFAULT_TOKENS, customized: false });
    expect((await api.get(path)).body).toEqual(reset.body);
    const empty = await api.patch(path, { tokens: {} });
    expect(empty.body).toMatchObject({ tokens: DEFAULT_TOKENS, customized: true });
  });

  it('accepts every typeface and radius of the catalogue', async () => {
    const { api, path } = await themed();
    for (const face of TYPEFACES) {
      const res = await api.patch(path, { tokens: { typography: { heading: face, body: face } } });
      expect(res.status, face).toBe(200);
      expect(res.body.cssVariables['--font-body']).toMatch(/serif|monospace/);
    }
    for (const radius of RADII) expect((await api.patch(path, { tokens: { radius } })).body.tokens.radius).toBe(radius);
  });

  it('anything outside the closed set is 400 svc.theme.invalid naming the field, and changes nothing', async () => {
    const { api, path } = await themed();
    const before = (await api.patch(path, { tokens: { colors: { accent: '#123456' } } })).body;
    const cases: [unknown, string][] = [
      [{}, 'tokens'],
      [{ tokens: 'dark' }, 'tokens'],
      [{ tokens: [] }, 'tokens'],
      [{ tokens: { colors: { secondary: '#ffffff' } } }, 'tokens.colors.secondary'],
      [{ tokens: { spacing: { sm: 4 } } }, 'tokens.spacing'],
      [{ tokens: { colors: { primary: '#fff' } } }, 'tokens.colors.primary'],
      [{ tokens: { colors: { primary: 'ffffff' } } }, 'tokens.colors.primary'],
      [{ tokens: { colors: { primary: '#fffffg' } } }, 'tokens.colors.primary'],
      [{ tokens: { colors: { primary: '#ffffff00' } } }, 'tokens.colors.primary'],
      [{ tokens: { colors: { primary: null } } }, 'tokens.colors.primary'],
      [{ tokens: { colors: null } }, 'tokens.colors'],
      [{ tokens: { typography: { heading: 'comic-sans' } } }, 'tokens.typography.heading'],
      [{ tokens: { typography: { body: 'Inter' } } }, 'tokens.typography.body'],
      [{ tokens: { typography: { caption: 'inter' } } }, 'tokens.typography.caption'],
      [{ tokens: { radius: 'huge' } }, 'tokens.radius'],
      [{ tokens: { radius: 4 } }, 'tokens.radius'],
      [{ tokens: {}, customized: true }, 'customized'],
    ];
    for (const [body, field] of cases) {
      const res = await api.patch(path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('svc.theme.invalid');
      expect(res.body.errors[0].field).toBe(field);
    }
    // A valid token next to an invalid one is not applied either.
    expect((await api.patch(path, { tokens: { radius: 'lg', colors: { muted: 'grey' } } })).status).toBe(400);
    expect((await api.get(path)).body).toEqual(before);
  });

  it('each site has its own theme', async () => {
    const a = await themed();
    const other = (await a.api.post('/v1/projects', { name: 'Other', slug: `theme-other-${++n}-${process.pid}` })).body;
    await a.api.patch(a.path, { tokens: { radius: 'xl' } });
    expect((await a.api.get(`/v1/projects/${other.id}/theme`)).body).toMatchObject({ tokens: DEFAULT_TOKENS, customized: false });
  });
});

describe('theme scopes', () => {
  it('rides landings:read and landings:write; projects scopes do not reach it', async () => {
    const reader = await themed(['landings:read']);
    expect((await reader.api.get(reader.path)).status).toBe(200);
    expect((await reader.api.patch(reader.path, { tokens: { radius: 'sm' } })).body.code).toBe('svc.api_key.scope_missing');
    const writer = await themed(['landings:write']);
    expect((await writer.api.patch(writer.path, { tokens: { radius: 'sm' } })).status).toBe(200);
    expect((await writer.api.get(writer.path)).body.code).toBe('svc.api_key.scope_missing');
    const projects = await themed(['projects:read', 'projects:write']);
    expect((await projects.api.get(projects.path)).status).toBe(403);
    expect((await projects.api.patch(projects.path, { tokens: null })).status).toBe(403);
  });
});
