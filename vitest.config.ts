import { defineConfig } from 'vitest/config';

const jsonOutput = process.env.VITEST_JSON_OUTPUT;

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'reports/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: jsonOutput ? ['default', ['json', { outputFile: jsonOutput }]] : ['default'],
  },
});
