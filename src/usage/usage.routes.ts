import type { Router } from '../platform/route.js';
import type { UsageService } from './usage.service.js';

/** The usage routes under `/v1`. */
export function registerUsageRoutes(router: Router, usage: UsageService): void {
  void router;
  void usage;
}
