import { idParam } from '../platform/openapi.js';
import type { Router } from '../platform/route.js';
import type { ProjectsService } from './projects.service.js';
import {
  AddressSchema, ProjectCreateSchema, ProjectDeletedSchema, ProjectListQuerySchema, ProjectListSchema, ProjectPatchSchema, ProjectSchema,
} from './projects.schema.js';

/** `/v1/projects`: sites, their settings and their public address. */
export function registerProjectsRoutes(router: Router, projects: ProjectsService): void {
  const tags = ['Projects'];
  const params = { projectId: idParam('project', 'prj') };
  router.add(
    {
      method: 'POST', path: '/v1/projects', operationId: 'createProject', tags, summary: 'Create a site', scope: 'projects:write',
      body: ProjectCreateSchema, invalid: 'svc.project.invalid',
      responses: { 201: { description: 'The project', schema: ProjectSchema } },
      errors: ['svc.project.invalid', 'svc.project.slug_taken', 'svc.project.slug_reserved', 'svc.billing.limit_reached', 'svc.request.invalid'],
    },
    async ({ auth, body }) => ({ status: 201, body: await projects.create(auth.workspaceId, body) }),
  );
  router.add(
    {
      method: 'GET', path: '/v1/projects', operationId: 'listProjects', tags, summary: 'List sites, newest first', scope: 'projects:read',
      query: ProjectListQuerySchema,
      responses: { 200: { description: 'A page of projects', schema: ProjectListSchema } },
      errors: ['svc.request.validation_failed'],
    },
    async ({ auth, query }) => ({ status: 200, body: await projects.list(auth.workspaceId, query) }),
  );
  router.add(
    {
      method: 'GET', path: '/v1/projects/:projectId', operationId: 'getProject', tags, params, summary: 'Get a site', scope: 'projects:read',
      responses: { 200: { description: 'The project', schema: ProjectSchema } },
      errors: ['svc.project.not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await projects.getProjectOrThrow(auth.workspaceId, params.projectId) }),
  );
  router.add(
    {
      method: 'PATCH', path: '/v1/projects/:projectId', operationId: 'updateProject', tags, params, scope: 'projects:write',
      summary: 'Edit a site (partial; objects merge, arrays are replaced; an added locale is translated)',
      body: ProjectPatchSchema, invalid: 'svc.project.invalid',
      responses: { 200: { description: 'The project', schema: ProjectSchema } },
      errors: ['svc.project.invalid', 'svc.project.not_found', 'svc.request.invalid'],
    },
    async ({ auth, params, body }) => ({ status: 200, body: await projects.update(auth.workspaceId, params.projectId, body) }),
  );
  router.add(
    {
      method: 'PUT', path: '/v1/projects/:projectId/address', operationId: 'changeProjectAddress', tags, params, scope: 'projects:write',
      summary: 'Move a site to a new slug; the old one is retired and held for this workspace',
      body: AddressSchema, invalid: 'svc.project.invalid',
      responses: { 200: { description: 'The project', schema: ProjectSchema } },
      errors: ['svc.project.invalid', 'svc.project.not_found', 'svc.project.slug_taken', 'svc.project.slug_reserved', 'svc.request.invalid'],
    },
    async ({ auth, params, body }) => ({ status: 200, body: await projects.changeAddress(auth.workspaceId, params.projectId, body.slug) }),
  );
  router.add(
    {
      method: 'DELETE', path: '/v1/projects/:projectId', operationId: 'deleteProject', tags, params, scope: 'projects:write',
      summary: 'Delete a site and its pages and free its address; agents, knowledge and images stay',
      responses: { 200: { description: 'What was deleted', schema: ProjectDeletedSchema } },
      errors: ['svc.project.not_found'],
    },
    async ({ auth, params }) => ({ status: 200, body: await projects.delete(auth.workspaceId, params.projectId) }),
  );
}
