import type { Router } from '../platform/route.js';
import type { PagesService } from './pages.service.js';

/** The pages routes under `/v1`. */
export function registerPagesRoutes(router: Router, pages: PagesService): void {
  void router;
  void pages;
}
