import type { Router } from '../platform/route.js';
import type { AssetsService } from './assets.service.js';

/** The assets routes under `/v1`. */
export function registerAssetsRoutes(router: Router, assets: AssetsService): void {
  void router;
  void assets;
}
