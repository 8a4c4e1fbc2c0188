/**
 * `--expect-failures FILE`: a deployment's known failing requirements, each with a reason. A listed
 * check that fails is reported as an expected failure and does not fail the run; a listed check that
 * passes fails the run, so the list cannot rot. The file is checked before anything is sent: an
 * unknown id, a duplicate or an entry without a reason is unusable configuration (exit status 2).
 */
import { parse } from 'yaml';
import { ConfigError } from '../core/config-error.ts';
import { readConfigFile } from '../core/config-file.ts';
import { currentId } from '../core/renamed.ts';
import type { RuleDeclaration } from '../core/rule.ts';
import { summarize } from '../core/summary.ts';
import type { ExpectationState, ExpectedFailure, Report } from '../core/report-model.ts';

const ENTRY_FIELDS = new Set(['id', 'reason']);

/** Reads and checks the file (JSON or YAML: a list of `{ id, reason }`). Throws ConfigError. */
export function loadExpectedFailures(
  path: string,
  checks: readonly Pick<RuleDeclaration, 'id' | 'level' | 'drift'>[],
): ExpectedFailure[] {
  const flag = `--expect-failures ${path}`;
  const text = readConfigFile(flag, path);
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new ConfigError(`${flag} is neither JSON nor YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return [];
  if (!Array.isArray(parsed)) {
    throw new ConfigError(`${flag} must be a list of { id, reason } entries`);
  }
  const byId = new Map(checks.map((check) => [check.id, check]));
  const seen = new Set<string>();
  return parsed.map((entry: unknown, index) => {
    const at = `${flag}, entry ${index + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new ConfigError(`${at} must be an object { id, reason }`);
    }
    const record = entry as Record<string, unknown>;
    const unknown = Object.keys(record).filter((key) => !ENTRY_FIELDS.has(key));
    if (unknown.length > 0) {
      throw new ConfigError(`${at} has an unknown field ${JSON.stringify(unknown[0])} (only id and reason)`);
    }
    const { id, reason } = record;
    if (typeof id !== 'string' || id.trim() === '') throw new ConfigError(`${at} needs an id`);
    const check = byId.get(currentId(id.trim()));
    if (!check) {
      throw new ConfigError(
        `${at}: unknown requirement id ${JSON.stringify(id)} (npm run conformance -- --list shows them)`,
      );
    }
    if (check.level === 'advisory' && !check.drift) {
      throw new ConfigError(
        `${at}: ${check.id} is advisory (it reports a decision and never fails the run), so it cannot be an expected failure`,
      );
    }
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new ConfigError(`${at} (${check.id}) needs a reason`);
    }
    if (seen.has(check.id)) {
      const was = currentId(id.trim()) === id.trim() ? '' : ` (${id.trim()} is ${check.id} now)`;
      throw new ConfigError(`${at}: ${check.id} is listed twice${was}`);
    }
    seen.add(check.id);
    return { id: check.id, reason: reason.trim() };
  });
}

/**
 * Marks the listed results and recomputes the summary. A drift check's finding counts as failing
 * whether it failed (`--strict`) or was reported as advisory.
 */
export function applyExpectedFailures(report: Report, file: string, expected: ExpectedFailure[]): Report {
  const reasons = new Map(expected.map((e) => [e.id, e.reason]));
  const results = report.results.map((result) => {
    const reason = reasons.get(result.id);
    if (reason === undefined) return result;
    const state: ExpectationState =
      result.status === 'fail' || (result.status === 'advisory' && result.drift)
        ? 'failing'
        : result.status === 'pass'
          ? 'fixed'
          : 'not-run';
    return { ...result, expectedFailure: { reason, state } };
  });
  const stateOf = new Map(results.map((r) => [r.id, r.expectedFailure?.state]));
  const marked: Report = {
    ...report,
    results,
    summary: summarize(results),
    expectations: {
      file,
      entries: expected.map((e) => ({ ...e, state: stateOf.get(e.id) ?? 'not-run' })),
    },
  };
  if (report.unreachable) marked.summary.verdict = 'fail';
  return marked;
}
