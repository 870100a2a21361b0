import { defineConfig } from 'vitest/config';

// The one vitest config of the workspace: each package's vitest.config.ts re-exports it, and
// vitest runs in that package's folder, so `include` and the report path are per package.
// Workspace packages resolve to their TypeScript sources through the `@dv/source` export
// condition, so tests never need a build. The JSON report (.reports/vitest.json in each package)
// is what .ci/sum-reports.mjs sums.
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
