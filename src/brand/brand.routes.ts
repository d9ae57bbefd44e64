import { requestOrigin } from '../assets/assets.routes.js';
import type { Router } from '../platform/route.js';
import type { BrandService } from './brand.service.js';
import { idParam } from '../platform/openapi.js';
import { BrandFileUploadSchema, BrandPatchSchema, BrandSchema, SlotParamSchema } from './brand.schema.js';

/** `/v1/projects/{projectId}/brand`: get, navbar and footer patch, and the file slots. */
export function registerBrandRoutes(router: Router, brand: BrandService): void {
  const tags = ['Brand'];
  const base = '/v1/projects/:projectId/brand';
  const params = { projectId: idParam('project', 'prj') };
  const slotParams = { ...params, slot: { description: 'The file slot', schema: SlotParamSchema.entries.slot } };
  const brandResponse = { 200: { description: 'The brand, files with fresh signed URLs', schema: BrandSchema } };
  router.add(
    {
      method: 'GET', path: base, operationId: 'getBrand', tags, params, summary: 'The brand of a site: logo, dark logo, favicon, navbar and footer', scope: 'brand:read',
      responses: brandResponse, errors: ['svc.project.not_found'],
    },
    async ({ c, auth, params }) => ({ status: 200, body: await brand.getBrand(auth.workspaceId, params.projectId, requestOrigin(c)) }),
  );
  router.add(
    {
      method: 'PATCH', path: base, operationId: 'updateBrand', tags, params, summary: 'Edit the navbar and footer (partial)', scope: 'brand:write',
      body: BrandPatchSchema, invalid: 'svc.brand.invalid',
      responses: brandResponse, errors: ['svc.brand.invalid', 'svc.project.not_found', 'svc.request.invalid'],
    },
    async ({ c, auth, params, body }) => ({ status: 200, body: await brand.update(auth.workspaceId, params.projectId, body, requestOrigin(c)) }),
  );
  router.add(
    {
      method: 'PUT', path: `${base}/:slot`, operationId: 'putBrandFile', tags, params: slotParams, summary: 'Put a file in a slot (logo, logo-dark, favicon), judged by its bytes', scope: 'brand:write',
      body: BrandFileUploadSchema, bodyKind: 'multipart', invalid: 'svc.brand.invalid',
      responses: brandResponse,
      errors: ['svc.brand.invalid', 'svc.brand.format_unsupported', 'svc.brand.svg_rejected', 'svc.project.not_found', 'svc.request.invalid', 'svc.request.payload_too_large'],
    },
    async ({ c, auth, params, body }) => ({ status: 200, body: await brand.putFile(auth.workspaceId, params.projectId, params.slot, body.file, requestOrigin(c)) }),
  );
  router.add(
    {
      method: 'DELETE', path: `${base}/:slot`, operationId: 'deleteBrandFile', tags, params: slotParams, summary: 'Empty a slot', scope: 'brand:write',
      responses: brandResponse, errors: ['svc.brand.invalid', 'svc.brand.not_found', 'svc.project.not_found'],
    },
    async ({ c, auth, params }) => ({ status: 200, body: await brand.deleteFile(auth.workspaceId, params.projectId, params.slot, requestOrigin(c)) }),
  );
}
