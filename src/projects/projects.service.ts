import type { CoreDeps } from '../core.js';

/** Projects: see API.md and CONTRACT.md. */
export class ProjectsService {
  constructor(private readonly deps: CoreDeps) {}
}
