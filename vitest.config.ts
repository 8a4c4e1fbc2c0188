import { defineConfig } from 'vitest/config';

const jsonOutput = process.env.VITEST_JSON_OUTPUT;

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'reports/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Vitest's default is one worker fewer than the cores: one, on the 2-core machines the project
    // and its CI run on, so every file waited for the last. Most files wait on servers and child
    // processes rather than compute, so three files at a time keep both cores busy.
    maxWorkers: 3,
    reporters: jsonOutput ? ['default', ['json', { outputFile: jsonOutput }]] : ['default'],
  },
});
