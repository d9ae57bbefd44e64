import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // README examples import the package by name; tests run them against the sources.
    alias: [
      { find: /^svc-emulator\/vitest$/, replacement: fileURLToPath(new URL('./emulator/vitest.ts', import.meta.url)) },
      { find: /^svc-emulator\/emulator$/, replacement: fileURLToPath(new URL('./emulator/index.ts', import.meta.url)) },
      { find: /^svc-emulator\/msw$/, replacement: fileURLToPath(new URL('./emulator/msw.ts', import.meta.url)) },
      { find: /^svc-emulator$/, replacement: fileURLToPath(new URL('./emulator/main.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One throwaway PostgreSQL server for the run (the fourth store backend).
    globalSetup: ['test/support/postgres-setup.ts'],
  },
});
