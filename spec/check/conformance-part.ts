/**
 * Part 3: the reference server judged strictly against the new spec, by the conformance CLI as a
 * partner runs it (`npm run conformance -- --spec PATH --strict`), with its embedded server.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LAUNCHER } from '../../command-line/launch.js';
import { keptLines, runTool } from './run-tool.ts';
import type { PartResult } from './types.ts';

const CONFORMANCE_MAIN = 'conformance/main.ts';

interface SuiteReport {
  summary?: { pass: number; fail: number; advisory: number; skip: number; 'not-judged': number };
  results?: { id: string; title: string; status: string; actual?: string }[];
  drift?: {
    findings?: {
      kind: string;
      where: string;
      message: string;
      method: string;
      path: string;
      status: number;
      check: string;
    }[];
  };
}

/** `reportDir`: where to keep the JSON and JUnit reports; a temporary folder, removed, when undefined. */
export async function conformancePart(specPath: string, reportDir?: string): Promise<PartResult> {
  const dir = reportDir ? resolve(reportDir) : mkdtempSync(join(tmpdir(), 'spec-check-'));
  const json = join(dir, 'conformance.json');
  const junit = join(dir, 'conformance.junit.xml');
  try {
    const run = await runTool(
      process.execPath,
      [
        LAUNCHER,
        CONFORMANCE_MAIN,
        '--',
        '--spec',
        resolve(specPath),
        '--strict',
        '--reporter',
        'json,junit',
        '--output',
        json,
        '--output',
        junit,
      ],
      { env: withoutTarget(process.env) },
    );
    const report = readReport(json);
    if (run.status === 0 || run.status === 1) {
      return { ...judged(run.status, report), ...(reportDir ? { reports: [json, junit] } : {}) };
    }
    return {
      name: 'conformance',
      status: 'error',
      summary: `the conformance suite could not judge the reference server (exit ${run.status})`,
      details: keptLines(`${run.stderr}\n${run.stdout}`, 12),
    };
  } finally {
    if (!reportDir) rmSync(dir, { recursive: true, force: true });
  }
}

/** The embedded reference server is the target: a base URL or keys in the environment must not redirect it. */
function withoutTarget(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('CONFORMANCE_')));
}

function readReport(path: string): SuiteReport {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as SuiteReport;
  } catch {
    return {};
  }
}

function judged(status: number, report: SuiteReport): PartResult {
  const s = report.summary;
  const counts = s ? `${s.pass} passed, ${s.fail} failed, ${s.advisory} advisory` : 'no JSON report';
  const findings = report.drift?.findings ?? [];
  const drift =
    findings.length === 0
      ? 'no drift'
      : `${findings.length} drift finding${findings.length === 1 ? '' : 's'}`;
  const failures = (report.results ?? []).filter((r) => r.status === 'fail');
  return {
    name: 'conformance',
    status: status === 0 ? 'pass' : 'fail',
    summary: `the reference server ${status === 0 ? 'holds' : 'does not hold'} strictly to the new spec: ${counts}, ${drift}`,
    details: [
      ...findings.map(
        (f) => `drift ${f.method} ${f.path} ${f.status} ${f.kind} ${f.where}: ${f.message} [${f.check}]`,
      ),
      ...failures.map((r) => `fail ${r.id} ${r.title}`),
    ],
  };
}
