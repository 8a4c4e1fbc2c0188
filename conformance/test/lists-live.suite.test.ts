/**
 * An endpoint goes live by editing the spec: with a copy of the spec where the lists endpoints are
 * live, and a deployment serving them, the suite sends the lists every generic rule's requests and
 * judges them, with no conformance code written for lists; and a deployment that breaks a rule on
 * the lists alone fails that rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSuite } from '../run/runner.ts';
import type { Report } from '../core/report-model.ts';
import { configFor, requiredFailures, resultOf } from './harness.ts';
import { listsLiveSpec, startListsServer, type ListsServer } from '../../tools/test-support/lists-server.ts';

let server: ListsServer;
let spec: string;
const reports = new Map<string, Promise<Report>>();

beforeAll(async () => {
  server = await startListsServer();
  spec = listsLiveSpec();
});

afterAll(async () => {
  await server.close();
});

function run(fault: Parameters<ListsServer['urlOf']>[0]): Promise<Report> {
  let report = reports.get(fault);
  if (!report) {
    report = runSuite(configFor(server.urlOf(fault), server.credentials, { specPath: spec }));
    reports.set(fault, report);
  }
  return report;
}

/** Requests a report's coverage counts per operation, by status. */
function observed(report: Report, operationId: string): Record<string, number> {
  const operation = report.coverage?.operations.find((o) => o.operationId === operationId);
  return Object.fromEntries(
    [...(operation?.statuses ?? []), ...(operation?.undocumented ?? [])]
      .filter((s) => s.observed > 0)
      .map((s) => [s.status, s.observed]),
  );
}

describe('an endpoint made live in the spec alone', () => {
  it('passes a correct deployment of it, judged by the generic rules', async () => {
    const report = await run('none');
    expect(requiredFailures(report)).toEqual([]);
    expect(report.summary.verdict).toBe('pass');
    const lists = observed(report, 'listLists');
    const list = observed(report, 'getList');
    // The key roles, the bounds and the refusals all reached the new operations.
    expect(Object.keys(lists)).toEqual(expect.arrayContaining(['200', '400', '401', '403']));
    expect(Object.keys(list)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
  });

  it('fails a deployment whose lists answer without a key, on the rule about keyless requests', async () => {
    const report = await run('lists-keyless');
    expect(resultOf(report, 'AUTH-003').status).toBe('fail');
    expect(resultOf(report, 'AUTH-003').actual).toContain('/api/v1/lists');
  });

  it("fails a deployment that serves another campaign's list, on isolation", async () => {
    const report = await run('lists-other-campaign');
    const failed = requiredFailures(report).map((line) => line.split(':')[0]);
    expect(failed).toContain('ISOLATION-002');
    expect(failed.every((id) => id?.startsWith('ISOLATION'))).toBe(true);
  });

  it('fails a deployment whose lists ignore limit, on the limit rule, with the bounds of the copy', async () => {
    const report = await run('lists-limit-ignored');
    const failed = requiredFailures(report).map((line) => line.split(':')[0]);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((id) => id?.startsWith('LIMITS') || id?.startsWith('COLLECTION'))).toBe(true);
  });

  it('fails a deployment whose list detail differs from its summary, on the shared fields', async () => {
    const report = await run('lists-detail-renamed');
    const failed = requiredFailures(report).map((line) => line.split(':')[0]);
    expect(failed).toContain('ITEM-002');
    expect(failed.every((id) => id?.startsWith('ITEM'))).toBe(true);
    expect(resultOf(report, 'ITEM-002').actual).toMatch(
      /\/api\/v1\/lists\/[^:]+: detail name .* ≠ summary name /,
    );
  });

  it('fails a deployment that lists a list it cannot serve, on the listed items', async () => {
    const report = await run('lists-last-unfetchable');
    const failed = requiredFailures(report).map((line) => line.split(':')[0]);
    expect(failed).toContain('ITEM-001');
    expect(failed.every((id) => id?.startsWith('ITEM'))).toBe(true);
    expect(resultOf(report, 'ITEM-001').actual).toContain('/api/v1/lists/');
  });
});
