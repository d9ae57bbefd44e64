import type { CoreDeps } from '../core.js';

/** Assets: see API.md and CONTRACT.md. */
export class AssetsService {
  constructor(private readonly deps: CoreDeps) {}
}
