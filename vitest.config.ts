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
    // A worker keeps the modules it has loaded from one test file to the next instead of loading
    // the suite, Ajv's compiled contract and the spec again for each of the 115 files: an eighth
    // of the CPU `npm test` spent. No test relies on a fresh module state; servers, files and
    // environment are each test's own.
    isolate: false,
    // Suite runs, recordings and reports allocate tens of megabytes a run: a young generation
    // twice Node's default halves how often it is swept, ~8 % of a worker's CPU (measured on 20
    // mutation-server runs: 13.7 s → 12.5 s). Test workers only; every command keeps Node's default.
    execArgv: ['--max-semi-space-size=32'],
    // One tarball per workspace per run, shared by the packaging tests (tools/packaging/test/pack-once.ts).
    globalSetup: ['tools/packaging/test/pack-once.ts'],
    reporters: jsonOutput ? ['default', ['json', { outputFile: jsonOutput }]] : ['default'],
  },
});
