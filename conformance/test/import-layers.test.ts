/**
 * The conformance suite is built in floors, each importing only its own floor and those below:
 * the ground (vocabulary and helpers that import nothing above them), the target (what talks to the
 * deployment and what every check is given), the checks, the runner, the reporters, and the
 * command line on top. Every file outside `test/` has a floor in the one table below.
 */
import { describe, expect, it } from 'vitest';
import type { ImportGraph } from '../../test-support/import-graph.ts';
import { circlesOf, scanImports, unplaced, upwardImports } from '../../test-support/import-graph.ts';

const FLOOR = { ground: 0, target: 1, checks: 2, runner: 3, reporters: 4, cli: 5 } as const;

/** Every file of the suite outside `test/`, relative to `conformance/`, with its floor. */
const FLOORS: Record<string, number> = {
  // The vocabulary and the helpers every floor shares; they import nothing of the suite above them.
  'types.ts': FLOOR.ground,
  'tool.ts': FLOOR.ground,
  'config-error.ts': FLOOR.ground,
  'config-file.ts': FLOOR.ground,
  'key-uses.ts': FLOOR.ground,
  'near-miss.ts': FLOOR.ground,
  'dot-segments.ts': FLOOR.ground,
  'security-view.ts': FLOOR.ground,
  'curl.ts': FLOOR.ground,
  'redact.ts': FLOOR.ground,
  'summary.ts': FLOOR.ground,
  'checks/outcome.ts': FLOOR.ground,
  'reach.ts': FLOOR.ground,
  // What talks to the deployment, decides it, and what every check is given.
  'client.ts': FLOOR.target,
  'dispatcher.ts': FLOOR.target,
  'pace.ts': FLOOR.target,
  'proxy-probe.ts': FLOOR.target,
  'tls-probe.ts': FLOOR.target,
  'target.ts': FLOOR.target,
  'operations.ts': FLOOR.target,
  'drift.ts': FLOOR.target,
  'shared-fetches.ts': FLOOR.target,
  'header-retry.ts': FLOOR.target,
  // `--traffic`: reading a recording, and an entry as an exchange.
  'traffic/har-entries.ts': FLOOR.ground,
  'traffic/secrets.ts': FLOOR.ground,
  'traffic/entry.ts': FLOOR.target,
  // The checks and their registry.
  'checks/check.ts': FLOOR.checks,
  'checks/sample.ts': FLOOR.checks,
  'checks/auth.ts': FLOOR.checks,
  'checks/consistency.ts': FLOOR.checks,
  'checks/drift.ts': FLOOR.checks,
  'checks/envelope.ts': FLOOR.checks,
  'checks/isolation.ts': FLOOR.checks,
  'checks/key-echo.ts': FLOOR.checks,
  'checks/key-matrix.ts': FLOOR.checks,
  'checks/path-variants.ts': FLOOR.checks,
  'checks/planned.ts': FLOOR.checks,
  'checks/limits.ts': FLOOR.checks,
  'checks/methods.ts': FLOOR.checks,
  'checks/not-found.ts': FLOOR.checks,
  'checks/walk-detail.ts': FLOOR.checks,
  'checks/walks-list.ts': FLOOR.checks,
  'checks/registry.ts': FLOOR.checks,
  // Running a selection of checks against a target, and what a run is compared with.
  'runner.ts': FLOOR.runner,
  'preflight.ts': FLOOR.runner,
  'reach-stops.ts': FLOOR.runner,
  'selection.ts': FLOOR.runner,
  'expectations.ts': FLOOR.runner,
  'compare.ts': FLOOR.runner,
  // `--traffic`: the rules over recorded answers, an exchange and an entry judged on their own,
  // their tallies, the worker threads that judge beside the main thread, and the run.
  'traffic/rules.ts': FLOOR.runner,
  'traffic/cross.ts': FLOOR.runner,
  'traffic/exchange-judge.ts': FLOOR.runner,
  'traffic/entry-verdict.ts': FLOOR.runner,
  'traffic/judge.ts': FLOOR.runner,
  'traffic/worker-module.ts': FLOOR.runner,
  'traffic/judge-worker.ts': FLOOR.runner,
  'traffic/judge-pool.ts': FLOOR.runner,
  'traffic/run.ts': FLOOR.runner,
  // What a run's report and traffic become.
  'reporters/sections.ts': FLOOR.reporters,
  'reporters/console.ts': FLOOR.reporters,
  'reporters/progress.ts': FLOOR.reporters,
  'reporters/html.ts': FLOOR.reporters,
  'reporters/junit.ts': FLOOR.reporters,
  'reporters/format.ts': FLOOR.reporters,
  'har.ts': FLOOR.reporters,
  // The command line and the other ways in.
  'config.ts': FLOOR.cli,
  'cli.ts': FLOOR.cli,
  'main.ts': FLOOR.cli,
  'vitest/requirements.conformance.ts': FLOOR.cli,
  'vitest/vitest.config.ts': FLOOR.cli,
};

const floors = new Map(Object.entries(FLOORS).map(([file, floor]) => [`conformance/${file}`, floor]));
const { graph, unresolved } = scanImports('conformance');
const isTest = (file: string) => file.startsWith('conformance/test/');

describe('the conformance suite is built in floors', () => {
  it('resolves every import to a file', () => {
    expect(graph.size).toBeGreaterThan(60);
    expect(unresolved).toEqual([]);
  });

  it('has no import circle anywhere, type-only imports and tests included', () => {
    expect(circlesOf(graph)).toEqual([]);
  });

  it('gives every file outside test/ a floor, and the table names no file that is gone', () => {
    expect(unplaced(graph, floors, (file) => !isTest(file))).toEqual({ missing: [], stale: [] });
  });

  it('never imports up a floor', () => {
    expect(upwardImports(graph, floors)).toEqual([]);
  });

  it('keeps the ground floor to itself: it imports nothing of the suite above it', () => {
    const ground = [...floors].filter(([, floor]) => floor === FLOOR.ground).map(([file]) => file);
    const reach = ground.flatMap((file) => (graph.get(file) ?? []).filter((path) => floors.has(path)));
    expect(reach.filter((path) => floors.get(path) !== FLOOR.ground)).toEqual([]);
  });

  it('keeps the tests out of the suite, and the benchmark out of everything', () => {
    const intoTests = [...graph].filter(([file, imports]) => !isTest(file) && imports.some(isTest));
    expect(intoTests.map(([file]) => file)).toEqual([]);
    const intoBench = [...graph].filter(([, imports]) => imports.some((path) => path.startsWith('bench/')));
    expect(intoBench.map(([file]) => file)).toEqual([]);
  });
});

describe('the floor rules can fail', () => {
  const synthetic: ImportGraph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
    ['e.ts', []],
  ]);
  const table = new Map([
    ['a.ts', 0],
    ['b.ts', 1],
    ['c.ts', 1],
    ['gone.ts', 2],
  ]);

  it('finds a circle', () => {
    expect(circlesOf(synthetic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('finds an import up a floor, and allows one down or across', () => {
    expect(upwardImports(synthetic, table)).toEqual(['a.ts (0) → b.ts (1)']);
  });

  it('finds a file without a floor and a floor without a file', () => {
    expect(unplaced(synthetic, table, (file) => file !== 'e.ts')).toEqual({
      missing: ['d.ts'],
      stale: ['gone.ts'],
    });
  });
});
