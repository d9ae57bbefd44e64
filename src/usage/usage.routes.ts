import type { Router } from '../platform/route.js';
import type { UsageService } from './usage.service.js';
import { UsageSchema } from './usage.schema.js';

/** `GET /v1/usage`. */
export function registerUsageRoutes(router: Router, usage: UsageService): void {
  router.add(
    {
      method: 'GET',
      path: '/v1/usage',
      operationId: 'getUsage',
      tags: ['Usage'],
      scope: 'analytics:read',
      summary: "Messages used, counts against plan caps, and today's activity",
      responses: { 200: { description: 'Usage of the workspace', schema: UsageSchema } },
    },
    async ({ auth }) => ({ status: 200, body: await usage.get(auth.workspaceId) }),
  );
}
