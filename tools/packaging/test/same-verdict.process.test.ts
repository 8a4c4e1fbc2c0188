/**
 * One build, one verdict: the conformance package installed from its tarball as a QA team installs
 * it, and `npm run conformance` in the repository, against the same reference server, end alike:
 * the same exit status, the same number of requests sent and the same status for every rule. A
 * file the rules read that the package did not ship (the planned spec, say) shows here as a rule
 * skipped or judged on fewer requests by the packed CLI only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../../conformance/core/report-model.ts';
import { type RunningServer, startReferenceServer } from '../../../reference-server/start.ts';
import { binOf, cleanup, outsideEnv, run, scratchDir } from '../packed.ts';
import { installedForRun, packedForRun } from './pack-once.ts';

let project: string;
let reference: RunningServer;

beforeAll(async () => {
  project = await installedForRun([await packedForRun('conformance')]);
  reference = await startReferenceServer({ log: false });
}, 900_000);

afterAll(async () => {
  await reference?.close();
  cleanup();
});

interface Verdict {
  status: number | null;
  sent: number;
  rules: Record<string, string>;
}

/** A run's exit status, requests sent and each rule's status, from the JSON report it wrote. */
async function verdictOf(command: string, args: string[], cwd: string): Promise<Verdict> {
  const output = join(scratchDir('same-verdict'), 'report.json');
  const flags = ['--base-url', reference.baseUrl, '--reporter', 'json', '--output', output, '--quiet'];
  const ran = await run(command, [...args, ...flags], { cwd, env: outsideEnv(reference.credentials) });
  const report = JSON.parse(readFileSync(output, 'utf8')) as Report;
  return {
    status: ran.status,
    sent: report.requests.sent,
    rules: Object.fromEntries(report.results.map((result) => [result.id, result.status])),
  };
}

describe('the packed conformance CLI and npm run conformance', () => {
  it('give the same verdict on the same server: exit status, requests sent and every rule', async () => {
    const repository = await verdictOf('npm', ['run', '--silent', 'conformance', '--'], process.cwd());
    const packed = await verdictOf(binOf(project, 'canvassing-conformance'), [], project);
    expect(repository.status).toBe(0);
    // The rules that read the planned spec judged something in the repository's run.
    expect(repository.rules['PLANNED-001']).toBe('pass');
    expect(packed).toEqual(repository);
  });
});
