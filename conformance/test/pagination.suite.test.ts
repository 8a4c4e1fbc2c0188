/**
 * Cursor pagination the engine follows, from the spec alone: with a spec copy whose lists collection
 * has a `cursor` beside `limit` and a `next_cursor` in its envelope (inferred, no extension), the
 * suite walks the pages, sends a cursor it never got and another campaign's, and carries the
 * primary key's cursor with the key that lacks the scope and with none. A correct paged deployment
 * passes; each broken one fails its pagination rule alone.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactorFor } from '../core/redact.ts';
import type { Report } from '../core/report-model.ts';
import { harText } from '../reporters/har.ts';
import { runLive } from '../run/runner.ts';
import {
  PAGED_FAULTS,
  pagedListsSpec,
  type PagedFault,
  type PagedServer,
  startPagedServer,
} from '../../tools/test-support/paged-server.ts';
import { configFor, requiredFailures, resultOf, runCli } from './harness.ts';

let server: PagedServer;
let spec: string;
const runs = new Map<PagedFault, Promise<{ report: Report; har: string }>>();
const dir = mkdtempSync(join(tmpdir(), 'pagination-'));

beforeAll(async () => {
  server = await startPagedServer();
  spec = pagedListsSpec();
});

afterAll(async () => {
  await server.close();
});

/** One live run against the fault, with its recording as `--har` writes it (keys redacted). */
function recorded(fault: PagedFault): Promise<{ report: Report; har: string }> {
  let run = runs.get(fault);
  if (!run) {
    run = (async () => {
      const config = configFor(server.urlOf(fault), server.credentials, { specPath: spec });
      const { report, exchanges } = await runLive(config);
      const har = join(dir, `${fault}.har`);
      writeFileSync(har, harText(exchanges, report, redactorFor(config.keys)));
      return { report, har };
    })();
    runs.set(fault, run);
  }
  return run;
}

const run = async (fault: PagedFault) => (await recorded(fault)).report;

/** The recording judged alone, as `--traffic` judges any deployment's. */
async function judged(fault: PagedFault) {
  const { har } = await recorded(fault);
  return runCli(['--traffic', har, '--spec', spec, '--quiet']);
}

/** The rule a fault breaks, as the coverage table names it. */
const ruleBroken = (fault: PagedFault) => PAGED_FAULTS.find((f) => f.name === fault)?.breaks ?? 'none';

const failedIds = (report: Report) => requiredFailures(report).map((line) => line.split(':')[0]);

describe('cursor pagination, inferred from the spec', () => {
  it('walks the pages of a correct deployment to the end and passes every pagination rule', async () => {
    const report = await run('none');
    expect(requiredFailures(report)).toEqual([]);
    expect(report.summary.verdict).toBe('pass');
    for (const id of ['001', '002', '003', '004', '005', '006'])
      expect(resultOf(report, `PAGINATION-${id}`).status, id).toBe('pass');
    // 12 lists at 3 a page: the first page and three more, one walk.
    expect(resultOf(report, 'PAGINATION-002').actual).toBe('held on 1 walks');
    expect(resultOf(report, 'PAGINATION-001').judged?.requests).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['page-limit-ignored', /\d+ items, more than the 3 asked/],
    ['cursor-stuck', /gave the next cursor .* again: the cursor does not advance/],
    ['items-repeat', /item .* of page \d appears again on page \d/],
  ] as const)('catches %s on its rule alone', async (fault, finding) => {
    const id = ruleBroken(fault);
    const report = await run(fault);
    expect(failedIds(report)).toEqual([id]);
    expect(resultOf(report, id).actual).toMatch(finding);
  });

  // The cursor's format is not shown: answering a cursor it never issued is the deployment's
  // choice, reported against the project's decision and never failed.
  it('reports an unissued cursor answered 200 as advisory, never as a failure', async () => {
    const report = await run('unissued-accepted');
    expect(failedIds(report)).toEqual([]);
    const result = resultOf(report, 'PAGINATION-004');
    expect(result.status).toBe('advisory');
    expect(result.actual).toMatch(/cursor=conformance-unissued-.*: answered 200/);
  });

  // A cursor that carries another campaign's items, or items without a key, is a breach the
  // isolation and key rules see too, wherever those items show.
  it.each([
    ['foreign-cursor', /200 with \d+ items of the campaign the cursor was issued to/],
    ['cursor-scope-lost', /200 with \d+ items where (403|a refusal) was due/],
  ] as const)('catches %s on its rule, beside the isolation and key rules', async (fault, finding) => {
    const id = ruleBroken(fault);
    const report = await run(fault);
    const failed = failedIds(report);
    expect(failed).toContain(id);
    expect(failed.every((f) => /^(PAGINATION|ISOLATION|AUTH|ITEM-001)/.test(f ?? ''))).toBe(true);
    expect(resultOf(report, id).actual).toMatch(finding);
  });
});

// A recording's keys are redacted: it tells holders apart, not campaigns or scopes, so the rules
// about another campaign's cursor and a key without the scope judge live runs (and recordings made
// with the keys the run knows).
describe('cursor pagination judged from a recording', () => {
  it('passes the recording of the correct deployment, and prints the inference', async () => {
    const judgedRun = await judged('none');
    expect(judgedRun.status, judgedRun.stdout).toBe(0);
    expect(judgedRun.stderr).toContain(
      'GET /api/v1/lists pages by inference (no x-pagination): cursor parameter cursor, next cursor at next_cursor, items at data',
    );
  });

  it.each(PAGED_FAULTS.filter((f) => f.recorded).map((f) => [f.name, f.breaks] as const))(
    'fails %s on %s from the recording',
    async (fault, id) => {
      const judgedRun = await judged(fault);
      expect(judgedRun.status, judgedRun.stdout).toBe(1);
      expect(judgedRun.stdout).toContain(`✗ ${id} [`);
    },
  );
});
