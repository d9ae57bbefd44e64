import type { Router } from '../platform/route.js';
import type { KnowledgeService } from './knowledge.service.js';

/** The knowledge routes under `/v1`. */
export function registerKnowledgeRoutes(router: Router, knowledge: KnowledgeService): void {
  void router;
  void knowledge;
}
