import { describe } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { STORE_CASES } from './cases/index.js';

/**
 * One suite on every store: SQLite in memory, SQLite file, PGlite. Each part of the API
 * adds its cases in `./cases/`.
 */
describe.each(BACKENDS)('store on $name', (backend) => {
  for (const register of STORE_CASES) register(backend.options);
});
