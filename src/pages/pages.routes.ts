import { idParam } from '../platform/openapi.js';
import type { Router } from '../platform/route.js';
import type { PagesService } from './pages.service.js';
import { PageCreateSchema, PageDeletedSchema, PageListQuerySchema, PageListSchema, PagePatchSchema, PageSchema } from './pages.schema.js';

/** Pages of a site: `/v1/projects/{projectId}/pages` and `/v1/pages/{pageId}` (scopes `landings:*`). */
export function registerPagesRoutes(router: Router, pages: PagesService): void {
  const tags = ['Pages'];
  const params = { pageId: idParam('page', 'pg') };
  const projectParams = { projectId: idParam('project', 'prj') };
  const written = ['svc.page.invalid', 'svc.page.path_taken', 'svc.page.path_reserved', 'svc.request.invalid'] as const;
  router.add(
    {
      method: 'POST', path: '/v1/projects/:projectId/pages', operationId: 'createPage', tags, params: projectParams, summary: 'Create a page (a draft)', scope: 'landings:write',
      body: PageCreateSchema, invalid: 'svc.page.invalid',
      responses: { 201: { description: 'The page', schema: PageSchema } },
      errors: [...written, 'svc.project.not_found', 'svc.billing.limit_reached'],
    },
    async ({ auth, params, body }) => ({ status: 201, body: await pages.create(auth.workspaceId, params.projectId, body) }),
  );
  router.add(
    {
      method: 'GET', path: '/v1/projects/:projectId/pages', operationId: 'listPages', tags, params: projectParams, summary: 'List the pages of a site, newest first', scope: 'landings:read',
      query: PageListQuerySchema,
      responses: { 200: { description: 'A page of pages', schema: PageListSchema } },
      errors: ['svc.project.not_found', 'svc.request.validation_failed'],
    },
    async ({ auth, params, query }) => ({ status: 200, body: await pages.list(auth.workspaceId, params.projectId, query) }),
  );
  router.add(
    {
      method: 'GET', path: '/v1/pages/:pageId', operationId: 'getPage', tags, params, summary: 'Get a page', scope: 'landings:read',
      responses: { 200: { description: 'The page', schema: PageSchema } },
      errors: ['svc.page.not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await pages.getPageOrThrow(auth.workspaceId, params.pageId) }),
  );
  router.add(
    {
      method: 'PATCH', path: '/v1/pages/:pageId', operationId: 'updatePage', tags, params, scope: 'landings:write',
      summary: 'Edit a page (partial; an absent language is kept, an empty string removes it)',
      body: PagePatchSchema, invalid: 'svc.page.invalid',
      responses: { 200: { description: 'The page', schema: PageSchema } },
      errors: [...written, 'svc.page.not_found', 'svc.page.root_required'],
    },
    async ({ auth, params, body }) => ({ status: 200, body: await pages.update(auth.workspaceId, params.pageId, body) }),
  );
  router.add(
    {
      method: 'DELETE', path: '/v1/pages/:pageId', operationId: 'deletePage', tags, params, summary: 'Delete a page', scope: 'landings:write',
      responses: { 200: { description: 'What was deleted', schema: PageDeletedSchema } },
      errors: ['svc.page.not_found', 'svc.page.root_required'],
    },
    async ({ auth, params }) => ({ status: 200, body: await pages.delete(auth.workspaceId, params.pageId) }),
  );
  router.add(
    {
      method: 'POST', path: '/v1/pages/:pageId/publish', operationId: 'publishPage', tags, params, summary: 'Publish a page', scope: 'landings:write',
      responses: { 200: { description: 'The page', schema: PageSchema } },
      errors: ['svc.page.not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await pages.publish(auth.workspaceId, params.pageId) }),
  );
  router.add(
    {
      method: 'POST', path: '/v1/pages/:pageId/unpublish', operationId: 'unpublishPage', tags, params, summary: 'Unpublish a page', scope: 'landings:write',
      responses: { 200: { description: 'The page', schema: PageSchema } },
      errors: ['svc.page.not_found', 'svc.page.root_required'],
    },
    async ({ auth, params }) => ({ status: 200, body: await pages.unpublish(auth.workspaceId, params.pageId) }),
  );
}
