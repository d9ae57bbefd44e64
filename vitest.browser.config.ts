import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

const { projects: _projects, ...shared } = base.test ?? {};

// `npm run test:browser`: only the tests that drive Debian's Chromium.
export default defineConfig({ ...base, test: { ...shared, include: ['test/**/*.browser.test.ts'], exclude: ['node_modules/**'] } });
