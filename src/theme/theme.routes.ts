import { idParam } from '../platform/openapi.js';
import type { Router } from '../platform/route.js';
import type { ThemeService } from './theme.service.js';
import { ThemePatchSchema, ThemeSchema } from './theme.schema.js';

/** `/v1/projects/{projectId}/theme`: the appearance tokens of a site (scopes `landings:*`). */
export function registerThemeRoutes(router: Router, theme: ThemeService): void {
  const tags = ['Theme'];
  const params = { projectId: idParam('project', 'prj') };
  router.add(
    {
      method: 'GET', path: '/v1/projects/:projectId/theme', operationId: 'getTheme', tags, params, scope: 'landings:read',
      summary: 'The theme in force: tokens (own or defaults), CSS variables, and whether it is customized',
      responses: { 200: { description: 'The theme', schema: ThemeSchema } },
      errors: ['svc.project.not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await theme.getTheme(auth.workspaceId, params.projectId) }),
  );
  router.add(
    {
      method: 'PATCH', path: '/v1/projects/:projectId/theme', operationId: 'updateTheme', tags, params, scope: 'landings:write',
      summary: 'Merge a partial token patch onto the theme; tokens: null resets to the defaults',
      body: ThemePatchSchema, invalid: 'svc.theme.invalid',
      responses: { 200: { description: 'The theme', schema: ThemeSchema } },
      errors: ['svc.theme.invalid', 'svc.project.not_found', 'svc.request.invalid'],
    },
    async ({ auth, params, body }) => ({ status: 200, body: await theme.update(auth.workspaceId, params.projectId, body) }),
  );
}
