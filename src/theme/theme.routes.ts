import type { Router } from '../platform/route.js';
import type { ThemeService } from './theme.service.js';

/** The theme routes under `/v1`. */
export function registerThemeRoutes(router: Router, theme: ThemeService): void {
  void router;
  void theme;
}
