import type { CoreDeps } from '../core.js';

/** Knowledge: see API.md and CONTRACT.md. */
export class KnowledgeService {
  constructor(private readonly deps: CoreDeps) {}
}
