import type { CoreDeps } from '../core.js';

/** Usage: see API.md and CONTRACT.md. */
export class UsageService {
  constructor(private readonly deps: CoreDeps) {}
}
