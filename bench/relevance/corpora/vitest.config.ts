import { defineConfig } from 'vitest/config';

// The blind corpora's own check, outside the main suite (CI installs no corpus):
//   npx vitest run --config bench/relevance/corpora/vitest.config.ts
export default defineConfig({
  root: import.meta.dirname,
  test: { include: ['*.test.ts'], testTimeout: 180_000 },
});
