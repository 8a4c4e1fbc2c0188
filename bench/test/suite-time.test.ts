/**
 * What `npm run bench:suite` reads and judges (bench/suite-time.ts), on vitest's and /proc's real
 * formats. The timed runs themselves take minutes each and are never run by a test.
 */
import { describe, expect, it } from 'vitest';
import {
  allPassed,
  childrenCpuS,
  runEnv,
  runLine,
  type SuiteRun,
  testsOf,
  verdictLines,
  verdictOf,
} from '../suite-time.ts';

const run = (wallS: number, extra: Partial<SuiteRun> = {}): SuiteRun => ({
  ref: 'HEAD',
  commit: 'a9fc0b5e1',
  wallS,
  cpuS: 2 * wallS * 0.9,
  tests: 1000,
  failed: 0,
  status: 0,
  ...extra,
});

describe('reading a run', () => {
  it("counts vitest's closing summary, colours and all, failures included", () => {
    const passed =
      '\u001b[2m      Tests \u001b[22m \u001b[1m\u001b[32m1301 passed\u001b[39m\u001b[22m\u001b[90m (1301)\u001b[39m\n';
    expect(testsOf(`✓ a.test.ts (3 tests)\n${passed}   Duration 217s\n`)).toEqual({ tests: 1301, failed: 0 });
    expect(
      testsOf(' Test Files  1 failed | 116 passed (117)\n      Tests  1 failed | 1300 passed (1301)\n'),
    ).toEqual({
      tests: 1301,
      failed: 1,
    });
    expect(testsOf('      Tests  3 failed | 2 skipped | 931 passed (936)\n')).toEqual({
      tests: 936,
      failed: 3,
    });
  });

  it('finds no count where vitest printed no summary, and never takes the test files line for it', () => {
    expect(testsOf('npm ERR! missing script: test\n')).toBeUndefined();
    expect(testsOf(' Test Files  117 passed (117)\n')).toBeUndefined();
    expect(testsOf('')).toBeUndefined();
  });

  it('takes the CPU of waited-for children from /proc/self/stat, a command name with spaces and brackets included', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    const stat = '4242 (node (x) y) S 1 4242 4242 0 -1 4194560 100 2000 0 0 150 30 30112 4476 20 0 11 0';
    expect(childrenCpuS(stat, 100)).toBeCloseTo(345.88, 6);
    expect(childrenCpuS(stat, 1000)).toBeCloseTo(34.588, 6);
    expect(() => childrenCpuS('4242 (node) S 1', 100)).toThrow(/no child CPU times/);
  });

  it("gives a run the caller's environment without what npm run added", () => {
    const env = runEnv({
      HOME: '/home/qa',
      HTTPS_PROXY: 'http://proxy:3128',
      npm_lifecycle_event: 'bench:suite',
      npm_config_cache: '/x',
      NPM_CONFIG_USERCONFIG: '/y',
      INIT_CWD: '/work/main',
      NODE: '/usr/bin/node',
      PATH: '/work/main/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/usr/local/bin:/usr/bin',
    });
    expect(env).toEqual({
      HOME: '/home/qa',
      HTTPS_PROXY: 'http://proxy:3128',
      PATH: '/usr/local/bin:/usr/bin',
    });
  });
});

describe('judging runs', () => {
  it('meets the floor at half of the other commit’s median wall time, and not a second above it', () => {
    expect(verdictOf([run(150)], [run(300)])).toEqual({
      wallS: 150,
      againstWallS: 300,
      floorS: 150,
      met: true,
    });
    expect(verdictOf([run(151)], [run(300)]).met).toBe(false);
    // Medians of alternating rounds: one slow outlier moves neither side.
    expect(verdictOf([run(140), run(400), run(150)], [run(300), run(310), run(100)])).toEqual({
      wallS: 150,
      againstWallS: 300,
      floorS: 150,
      met: true,
    });
  });

  it('counts a run as passed only with a summary, no failure and exit 0', () => {
    expect(allPassed([run(1), run(2)])).toBe(true);
    expect(allPassed([run(1), run(2, { failed: 1, status: 1 })])).toBe(false);
    expect(allPassed([run(1, { status: 1 })])).toBe(false);
    expect(allPassed([run(1, { tests: undefined, failed: undefined })])).toBe(false);
  });

  it('prints each run with its CPU, the cores it kept busy and its wall time per test', () => {
    expect(runLine(run(200, { cpuS: 380 }), 2)).toBe(
      '  a9fc0b5e1 (HEAD)  wall 200.0 s · CPU 380.0 s (95 % of 2 cores) · 1000 tests, 0 failed · 200 ms a test',
    );
    expect(runLine(run(12.5, { cpuS: undefined, tests: undefined, failed: undefined, status: 1 }), 2)).toBe(
      '  a9fc0b5e1 (HEAD)  wall 12.5 s · CPU n/a · no vitest summary · no test count · npm test exited 1',
    );
  });

  it('prints the verdict beside its floor, and the wall time per test of both', () => {
    const mine = [run(234, { tests: 1301 })];
    const theirs = [run(356, { tests: 936, ref: '645f36f' })];
    expect(verdictLines(verdictOf(mine, theirs), mine, theirs)).toEqual([
      '  npm test 234.0 s against 356.0 s: 66 % · floor ≤ 178.0 s (half): MISSED',
      '  wall time per test 180 ms against 380 ms: 47 %',
    ]);
    const quick = [run(170)];
    expect(verdictLines(verdictOf(quick, theirs), quick, theirs)[0]).toMatch(
      /: 48 % · floor ≤ 178\.0 s \(half\): met$/,
    );
  });
});
