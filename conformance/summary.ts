/** The counts and the verdict of a run, from its results alone. */
import type { CheckResult, ReportSummary } from './types.ts';

export function summarize(results: CheckResult[]): ReportSummary {
  const count = (status: CheckResult['status']) => results.filter((r) => r.status === status).length;
  const requiredFailures = results.filter(
    (r) => r.status === 'fail' && r.effectiveLevel === 'required' && r.expectedFailure?.state !== 'failing',
  ).length;
  const expectedFailures = results.filter((r) => r.expectedFailure?.state === 'failing').length;
  const fixedExpectedFailures = results.filter((r) => r.expectedFailure?.state === 'fixed').length;
  return {
    total: results.length,
    pass: count('pass'),
    fail: count('fail'),
    skip: count('skip'),
    advisory: count('advisory'),
    inconclusive: count('inconclusive'),
    requiredFailures,
    expectedFailures,
    fixedExpectedFailures,
    verdict: requiredFailures === 0 && fixedExpectedFailures === 0 ? 'pass' : 'fail',
  };
}
