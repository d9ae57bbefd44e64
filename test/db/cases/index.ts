import type { DatabaseOptions } from '../../../src/db/database.js';
import { coreCases } from './core.cases.js';
import { knowledgeCases } from './knowledge.cases.js';
import { assetsCases } from './assets.cases.js';
import { sitesCases } from './sites.cases.js';
import { agentsCases } from './agents.cases.js';

/** A part's cases: a function that declares `it(...)`s for one backend. */
export type StoreCases = (db: () => DatabaseOptions) => void;

export const STORE_CASES: StoreCases[] = [coreCases, sitesCases, assetsCases, knowledgeCases, agentsCases];
