/**
 * Paging inside an item: with a spec where a saved list's voters page by a cursor (the common
 * shape beside the voters), the pagination rules walk the voters of a list as they walk the lists
 * collection, and the reference server serving that spec passes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../core/report-model.ts';
import { runLive } from '../run/runner.ts';
import { configFor, requiredFailures, resultOf } from './harness.ts';
import { type RunningServer, startReferenceServer } from '../../reference-server/start.ts';
import { listsAndSmsDecisions, plannedMadeLive } from '../../tools/test-support/planned-live.ts';

let server: RunningServer;
let report: Report;
let sent: string[];

beforeAll(async () => {
  const spec = plannedMadeLive(['/api/v1/lists', '/api/v1/lists/{id}'], listsAndSmsDecisions, {
    pagedItems: ['/api/v1/lists/{id}'],
  });
  server = await startReferenceServer({ spec, log: false });
  const config = configFor(server.baseUrl, server.credentials, { specPath: spec, only: ['PAGINATION'] });
  const run = await runLive(config);
  report = run.report;
  sent = run.exchanges.map((exchange) => exchange.request.url);
}, 300_000);

afterAll(async () => {
  await server?.close();
});

describe("the pagination rules on an item's paged array", () => {
  it("follow a list's voters from page to page with the cursors the pages give", () => {
    const voterPages = sent.filter((url) => /\/api\/v1\/lists\/[^/?]+\?.*cursor=/.test(url));
    expect(voterPages.length).toBeGreaterThan(0);
  });

  it('judge the walk through the voters besides the walk through the lists, and pass', () => {
    expect(requiredFailures(report)).toEqual([]);
    // One walk of the lists collection, and one (at least) of a list's voters.
    expect(resultOf(report, 'PAGINATION-002').judged?.records).toBeGreaterThanOrEqual(2);
    expect(resultOf(report, 'PAGINATION-002').status).toBe('pass');
    expect(resultOf(report, 'PAGINATION-003').status).toBe('pass');
  });
});
