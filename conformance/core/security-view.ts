/**
 * The security view of a run: the rules grouped under the OWASP API Security Top 10 (2023)
 * categories each names (`core/owasp.ts`), so QA can read the authentication surface at a glance.
 * Derived from the results alone, so every reporter shows the same view. A category fails only when
 * a rule of it was judged broken; one whose rules were left unjudged says so.
 */
import { OWASP_CATEGORIES, type OwaspCategory } from './owasp.ts';
import type { CheckResult, SecurityCategory } from './report-model.ts';

/** Whether a failed rule failed under this category: every category it names, or those its findings did. */
const failedUnder = (r: CheckResult, id: OwaspCategory) =>
  r.status === 'fail' && (r.owaspFailed === undefined || r.owaspFailed.includes(id));

function statusOf(results: CheckResult[], id: OwaspCategory): SecurityCategory['status'] {
  if (results.some((r) => failedUnder(r, id))) return 'fail';
  if (results.some((r) => r.drift && r.status === 'advisory')) return 'advisory';
  if (results.some((r) => r.status === 'not-judged' && r.effectiveLevel === 'required')) return 'not judged';
  // A rule whose findings fell under other categories was judged here too, and held.
  return results.some((r) => r.status === 'pass' || r.status === 'fail') ? 'pass' : 'not judged';
}

/** Every category the suite covers, judged or not: a category nothing judged says so. */
export function securityView(results: readonly CheckResult[]): SecurityCategory[] {
  return (Object.keys(OWASP_CATEGORIES) as OwaspCategory[]).map((id) => {
    const covered = results.filter((r) => r.owasp?.includes(id));
    return {
      id,
      name: OWASP_CATEGORIES[id],
      status: statusOf(covered, id),
      checks: covered.map((r) => r.id),
      failed: covered.filter((r) => failedUnder(r, id)).map((r) => r.id),
    };
  });
}

/** One line: `API1:2023 pass · API2:2023 FAIL (AUTH-013) · ...`. */
export function securityLine(view: readonly SecurityCategory[]): string {
  const parts = view.map(
    (c) => `${c.id} ${c.status === 'fail' ? `FAIL (${c.failed.join(', ')})` : c.status}`,
  );
  return `SECURITY (OWASP API Top 10 2023): ${parts.join(' · ')}`;
}
