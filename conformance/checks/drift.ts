/**
 * Drift (issue 4, strict mode): what a deployment sends beyond the spec. Reported as advisory by
 * default; with --strict / CONFORMANCE_STRICT=1 each finding fails the run. The findings come from
 * conformance/drift.ts, the same analysis as the reports' drift section: every difference listed
 * once, grouped by operation, status and place, with how many answers showed it.
 */
import type { DriftKind } from '../types.ts';
import { observeDrift } from '../drift.ts';
import type { Check, CheckContext } from './check.ts';
import { inconclusive, verdict } from './outcome.ts';

/** Answers of documented operations that a check of this kind can judge. */
function judgeable(ctx: CheckContext, kind: DriftKind): number {
  return ctx.client.exchanges.filter((exchange) => {
    const response = exchange.response;
    if (!response || exchange.request.method === 'HEAD' || !ctx.operations.operationOf(exchange))
      return false;
    if (kind === 'field') return response.json !== undefined;
    if (kind === 'content-type') return response.body !== '';
    return true;
  }).length;
}

function judge(ctx: CheckContext, kind: DriftKind, expected: string, passed: (answers: number) => string) {
  const answers = judgeable(ctx, kind);
  if (answers === 0) return inconclusive(expected, 'no answer of a documented operation');
  const mine = observeDrift(ctx.client.exchanges, ctx).filter((o) => o.finding.kind === kind);
  const problems = mine.map(({ finding: f }) => {
    const where = kind === 'status' ? '' : ` ${f.where}`;
    return `${f.operationId} ${f.status}${where}: ${f.message} (${f.responses} of ${f.of} answers)`;
  });
  return verdict(expected, problems, passed(answers), mine[0]?.first);
}

export const driftChecks: Check[] = [
  {
    id: 'DRIFT-001',
    section: '§2, §4.1',
    title: 'No undocumented fields in any response object',
    area: 'drift',
    level: 'advisory',
    mock: 'run',
    drift: true,
    traffic: true,
    hint: 'Remove the field, or document it in spec/openapi.yaml first.',
    async run(ctx) {
      return judge(
        ctx,
        'field',
        'only the fields spec/openapi.yaml documents',
        (n) => `no undocumented field in ${n} answers`,
      );
    },
  },
  {
    id: 'DRIFT-002',
    section: '§7',
    title: 'No undocumented status codes on the documented operations',
    area: 'drift',
    level: 'advisory',
    mock: 'run',
    drift: true,
    traffic: true,
    hint: 'Answer with the statuses spec/openapi.yaml documents for the operation, or document the new one first.',
    async run(ctx) {
      return judge(
        ctx,
        'status',
        'only statuses spec/openapi.yaml documents for each operation',
        (n) => `${n} answers, all statuses documented`,
      );
    },
  },
  {
    id: 'DRIFT-003',
    section: '§4',
    title: 'No undocumented content types on the documented operations',
    area: 'drift',
    level: 'advisory',
    mock: 'run',
    drift: true,
    traffic: true,
    hint: 'Send the content type spec/openapi.yaml documents (application/json).',
    async run(ctx) {
      return judge(
        ctx,
        'content-type',
        'only content types spec/openapi.yaml documents',
        (n) => `${n} answers, all content types documented`,
      );
    },
  },
];
