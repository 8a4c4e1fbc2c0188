/** The counts and the verdict of a run, from its results alone. */
import { RESULT_CLASSES, type ResultClass } from '../../spec/facts.ts';
import type { CheckResult, ReportSummary } from './report-model.ts';

/**
 * fail: a required rule failed (and no expected failure covers it), or an expected failure was
 * fixed; not judged: nothing failed, but a required rule was left unjudged; pass: every required
 * rule was judged and held.
 */
export function summarize(results: readonly CheckResult[]): ReportSummary {
  const counts = Object.fromEntries(
    RESULT_CLASSES.map((status) => [status, results.filter((r) => r.status === status).length]),
  ) as Record<ResultClass, number>;
  const requiredFailures = results.filter(
    (r) => r.status === 'fail' && r.effectiveLevel === 'required' && r.expectedFailure?.state !== 'failing',
  ).length;
  const requiredNotJudged = results.filter(
    (r) => r.status === 'not-judged' && r.effectiveLevel === 'required' && r.expectedFailure === undefined,
  ).length;
  const expectedFailures = results.filter((r) => r.expectedFailure?.state === 'failing').length;
  const fixedExpectedFailures = results.filter((r) => r.expectedFailure?.state === 'fixed').length;
  const failed = requiredFailures > 0 || fixedExpectedFailures > 0;
  return {
    total: results.length,
    ...counts,
    requiredFailures,
    requiredNotJudged,
    expectedFailures,
    fixedExpectedFailures,
    verdict: failed ? 'fail' : requiredNotJudged > 0 ? 'not judged' : 'pass',
  };
}
