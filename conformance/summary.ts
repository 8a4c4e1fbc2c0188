/** The counts and the verdict of a run, from its results alone. */
import { RESULT_CLASSES, type ResultClass } from '../spec/facts.ts';
import type { CheckResult, ReportSummary } from './types.ts';

export function summarize(results: CheckResult[]): ReportSummary {
  const counts = Object.fromEntries(
    RESULT_CLASSES.map((status) => [status, results.filter((r) => r.status === status).length]),
  ) as Record<ResultClass, number>;
  const requiredFailures = results.filter(
    (r) => r.status === 'fail' && r.effectiveLevel === 'required' && r.expectedFailure?.state !== 'failing',
  ).length;
  const expectedFailures = results.filter((r) => r.expectedFailure?.state === 'failing').length;
  const fixedExpectedFailures = results.filter((r) => r.expectedFailure?.state === 'fixed').length;
  return {
    total: results.length,
    ...counts,
    requiredFailures,
    expectedFailures,
    fixedExpectedFailures,
    verdict: requiredFailures === 0 && fixedExpectedFailures === 0 ? 'pass' : 'fail',
  };
}
