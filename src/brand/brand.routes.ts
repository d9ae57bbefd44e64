import type { Router } from '../platform/route.js';
import type { BrandService } from './brand.service.js';

/** The brand routes under `/v1`. */
export function registerBrandRoutes(router: Router, brand: BrandService): void {
  void router;
  void brand;
}
