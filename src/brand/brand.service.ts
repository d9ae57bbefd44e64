import type { CoreDeps } from '../core.js';

/** Brand: see API.md and CONTRACT.md. */
export class BrandService {
  constructor(private readonly deps: CoreDeps) {}
}
