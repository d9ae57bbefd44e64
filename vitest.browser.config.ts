import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// `npm run test:browser`: only the tests that drive Debian's Chromium.
export default defineConfig({ ...base, test: { ...base.test, include: ['test/**/*.browser.test.ts'], exclude: ['node_modules/**'] } });
