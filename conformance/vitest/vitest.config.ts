/**
 * `npm run conformance:vitest`: the suite as vitest tests, one per requirement, for QA pipelines
 * that already collect vitest results. Configured by the same CONFORMANCE_* variables as the CLI.
 * Kept apart from `npm test` (its files are not `*.test.ts`) so a test run never aims at staging.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['conformance/vitest/*.conformance.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
  },
});
