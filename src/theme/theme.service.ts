import type { CoreDeps } from '../core.js';

/** Theme: see API.md and CONTRACT.md. */
export class ThemeService {
  constructor(private readonly deps: CoreDeps) {}
}
