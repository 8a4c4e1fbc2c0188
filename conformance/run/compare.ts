/**
 * `--compare PREVIOUS.json`: what changed since a previous `--reporter json` report of the suite —
 * checks newly failing and newly passing, advisories that are new or whose answer changed, drift
 * that is new and drift that is gone. The previous file is checked before anything is sent.
 */
import { currentId } from '../core/renamed.ts';
import { RESULT_CLASSES } from '../../spec/facts.ts';
import { ConfigError } from '../core/config-error.ts';
import { readConfigFile } from '../core/config-file.ts';
import { driftKey } from '../core/drift-analysis.ts';
import type {
  CheckChange,
  Comparison,
  DriftFinding,
  PreviousReport,
  Report,
  Status,
} from '../core/report-model.ts';

/** The result classes a report may hold, and 'inconclusive', what reports before "not judged" called it. */
const STATUSES: readonly string[] = [...RESULT_CLASSES, 'inconclusive'];

/** Reads a previous JSON report. Throws ConfigError when it is not one. */
export function loadPreviousReport(path: string): PreviousReport {
  const flag = `--compare ${path}`;
  const text = readConfigFile(flag, path);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${flag} is not JSON: ${(error as Error).message}`);
  }
  const report = raw as Partial<Record<string, unknown>> | null;
  const results = report?.results;
  if (
    typeof report !== 'object' ||
    report === null ||
    !Array.isArray(results) ||
    !results.every(
      (r: unknown) =>
        typeof r === 'object' &&
        r !== null &&
        typeof (r as { id?: unknown }).id === 'string' &&
        STATUSES.includes((r as { status?: unknown }).status as string),
    )
  ) {
    throw new ConfigError(
      `${flag} is not a conformance JSON report (write one with --reporter json): it needs results with id and status`,
    );
  }
  // Reports written before "not judged" had a name of its own called it inconclusive.
  const previous: PreviousReport = {
    results: (results as PreviousReport['results']).map((r) =>
      (r.status as string) === 'inconclusive' ? { ...r, status: 'not-judged' } : r,
    ),
  };
  const target = report.target as { baseUrl?: unknown } | undefined;
  if (typeof target?.baseUrl === 'string') previous.baseUrl = target.baseUrl;
  if (typeof report.startedAt === 'string') previous.startedAt = report.startedAt;
  if (typeof report.unreachable === 'string') previous.unreachable = report.unreachable;
  const findings = (report.drift as { findings?: unknown } | undefined)?.findings;
  if (Array.isArray(findings)) {
    previous.drift = findings.filter(
      (f: unknown): f is DriftFinding =>
        typeof f === 'object' &&
        f !== null &&
        typeof (f as DriftFinding).operationId === 'string' &&
        typeof (f as DriftFinding).status === 'number' &&
        typeof (f as DriftFinding).where === 'string' &&
        typeof (f as DriftFinding).message === 'string',
    );
  }
  return previous;
}

export function compareReports(current: Report, previous: PreviousReport, file: string): Comparison {
  const before = new Map(previous.results.map((r) => [currentId(r.id), r]));
  const change = (id: string, title: string, now: Status, actual: string): CheckChange => ({
    id,
    title,
    was: before.get(id)?.status ?? 'absent',
    now,
    actual,
  });
  const comparison: Comparison = {
    previous: { file },
    newlyFailing: [],
    newlyPassing: [],
    stillFailing: [],
    newAdvisories: [],
    newDrift: [],
    goneDrift: [],
    driftCompared: previous.drift !== undefined,
  };
  for (const key of ['baseUrl', 'startedAt', 'unreachable'] as const) {
    const value = previous[key];
    if (value !== undefined) comparison.previous[key] = value;
  }
  for (const r of current.results) {
    const was = before.get(r.id);
    if (r.status === 'fail') {
      if (was?.status === 'fail') comparison.stillFailing.push(r.id);
      else comparison.newlyFailing.push(change(r.id, r.title, r.status, r.actual));
    } else if (r.status === 'pass' && was?.status === 'fail') {
      comparison.newlyPassing.push(change(r.id, r.title, r.status, r.actual));
    } else if (r.status === 'advisory' && (was?.status !== 'advisory' || was.actual !== r.actual)) {
      const entry = change(r.id, r.title, r.status, r.actual);
      if (was?.status === 'advisory' && was.actual !== undefined) entry.wasActual = was.actual;
      comparison.newAdvisories.push(entry);
    }
  }
  if (previous.drift) {
    const then = new Set(previous.drift.map(driftKey));
    const now = new Set(current.drift.findings.map(driftKey));
    comparison.newDrift = current.drift.findings.filter((f) => !then.has(driftKey(f)));
    comparison.goneDrift = previous.drift.filter((f) => !now.has(driftKey(f)));
  }
  return comparison;
}
