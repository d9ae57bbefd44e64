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
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        // Every test; each answer an emulator gives is recorded (test/support/openapi-recorder.ts).
        extends: true,
        test: {
          name: 'api',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.browser.test.ts', 'test/conformance/**', 'node_modules/**'],
          setupFiles: ['test/support/openapi-recorder.ts', 'test/support/cache-audit.ts'],
          // One throwaway PostgreSQL server for the run (the fourth store backend).
          globalSetup: ['test/support/answers-reset.ts', 'test/support/postgres-setup.ts'],
        },
      },
      {
        // Then, once they are all done, those answers are checked against the OpenAPI description.
        extends: true,
        test: {
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
