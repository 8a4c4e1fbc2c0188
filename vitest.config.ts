/**
 * The tests in two tiers (vitest projects):
 * - `quick`: in-process tests, no child process, no external tool, no browser, Java or image build
 *   (`npm run test:quick`; watch them with `npx vitest --project quick`);
 * - `process`: what runs a command as a process, or Redocly, Spectral, Specmatic, Chromium, newman,
 *   esbuild or packed packages: test files named `*.process.test.ts`, and `*.image.test.ts` for a
 *   container image's build; and the whole conformance suite run against servers in-process, a few
 *   seconds a run (`*.suite.test.ts`: the broken servers, the variants, the reports of real runs).
 * `npm test` runs both, as CI does.
 */
import { defineConfig } from 'vitest/config';

const jsonOutput = process.env.VITEST_JSON_OUTPUT;

const ALWAYS_EXCLUDED = ['**/node_modules/**', 'reports/**', '**/dist/**'];
const PROCESS_TIER = ['**/*.process.test.ts', '**/*.image.test.ts', '**/*.suite.test.ts'];

export default defineConfig({
  test: {
    // Tests wait for events, not for time: these bounds only end a test that hangs, however busy
    // the machine is (a suite run takes seconds on an idle machine and minutes on a loaded one).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // Most files of the process tier wait on servers and child processes rather than compute: on
    // two cores, three files at a time keep both busy.
    maxWorkers: 3,
    // A worker keeps the modules it has loaded from one test file to the next instead of loading
    // the suite, Ajv's compiled contract and the spec again for each file. No test relies on a
    // fresh module state; servers, files and environment are each test's own.
    isolate: false,
    // Suite runs, recordings and reports allocate tens of megabytes a run: a young generation
    // twice Node's default sweeps it half as often. Test workers only; every command keeps Node's
    // default.
    execArgv: ['--max-semi-space-size=32'],
    reporters: jsonOutput ? ['default', ['json', { outputFile: jsonOutput }]] : ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'quick', include: ['**/*.test.ts'], exclude: [...ALWAYS_EXCLUDED, ...PROCESS_TIER] },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: PROCESS_TIER,
          exclude: ALWAYS_EXCLUDED,
          // One tarball per workspace per run, shared by the packaging tests.
          globalSetup: ['tools/packaging/test/pack-once.ts'],
        },
      },
    ],
  },
});
