import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources through the `@dv/source` export
// condition, so tests never need a build. The JSON report is what .ci/run sums.
export default defineConfig({
  resolve: { conditions: ['@dv/source'] },
  ssr: { resolve: { conditions: ['@dv/source'], externalConditions: ['@dv/source'] } },
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.reports/vitest.json' },
  },
});
