import type { CoreDeps } from '../core.js';

/** Pages: see API.md and CONTRACT.md. */
export class PagesService {
  constructor(private readonly deps: CoreDeps) {}
}
