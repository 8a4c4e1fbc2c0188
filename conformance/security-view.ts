/**
 * Ground layer: the security view of a run, the checks grouped under the OWASP API
 * Security Top 10 (2023) categories they cover, so QA can read the authentication surface at a
 * glance. Derived from the results alone (area and id), so every reporter shows the same view.
 */
import type { Area, CheckResult, SecurityCategory } from './types.ts';

/** The categories the suite covers, each by the areas (or the ids) of its checks. */
const CATEGORIES: readonly { id: string; name: string; areas?: Area[]; ids?: string[] }[] = [
  { id: 'API1:2023', name: 'Broken Object Level Authorization', areas: ['isolation'] },
  { id: 'API2:2023', name: 'Broken Authentication', areas: ['auth'] },
  { id: 'API3:2023', name: 'Broken Object Property Level Authorization', areas: ['drift'] },
  { id: 'API4:2023', name: 'Unrestricted Resource Consumption', areas: ['limits'] },
  { id: 'API5:2023', name: 'Broken Function Level Authorization', areas: ['methods'] },
  { id: 'API9:2023', name: 'Improper Inventory Management', ids: ['PLANNED-001', 'NOT-FOUND-005'] },
];

/**
 * fail: a check of it failed; advisory: drift was found but does not fail the run (no `--strict`);
 * pass: one passed and none failed; not judged: none passed or failed.
 */
function statusOf(results: CheckResult[]): SecurityCategory['status'] {
  if (results.some((r) => r.status === 'fail')) return 'fail';
  if (results.some((r) => r.drift && r.status === 'advisory')) return 'advisory';
  return results.some((r) => r.status === 'pass') ? 'pass' : 'not judged';
}

export function securityView(results: readonly CheckResult[]): SecurityCategory[] {
  return CATEGORIES.map(({ id, name, areas, ids }) => {
    const covered = results.filter((r) => areas?.includes(r.area) || ids?.includes(r.id));
    return {
      id,
      name,
      status: statusOf(covered),
      checks: covered.map((r) => r.id),
      failed: covered.filter((r) => r.status === 'fail').map((r) => r.id),
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
