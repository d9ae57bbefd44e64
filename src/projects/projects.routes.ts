import type { Router } from '../platform/route.js';
import type { ProjectsService } from './projects.service.js';

/** The projects routes under `/v1`. */
export function registerProjectsRoutes(router: Router, projects: ProjectsService): void {
  void router;
  void projects;
}
