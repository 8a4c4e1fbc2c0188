/**
 * Drift (issue 4, strict mode): what a deployment sends beyond the spec. Reported as advisory by
 * default; with --strict / CONFORMANCE_STRICT=1 each finding fails the run. The findings come from
 * conformance/drift.ts, the same analysis as the reports' drift section: every difference listed
 * once, grouped by operation, status and place, with how many answers showed it.
 */
import type { DriftKind } from '../types.ts';
import type { DriftObservation } from '../drift.ts';
import { observeDrift } from '../drift.ts';
import type { Exchange, Outcome } from '../types.ts';
import { isFinal } from '../types.ts';
import type { Check, CheckContext } from './check.ts';
import { inconclusive, verdict } from './outcome.ts';

/** Whether a check of this kind can judge this exchange: an answer of a documented operation. */
export function judgeableBy(
  kind: DriftKind,
  exchange: Exchange,
  ctx: Pick<CheckContext, 'operations'>,
): boolean {
  const response = exchange.response;
  if (!response || exchange.request.method === 'HEAD' || !ctx.operations.operationOf(exchange)) return false;
  if (kind === 'field') return response.json !== undefined;
  if (kind === 'content-type') return response.body !== '';
  return true;
}

/** What each DRIFT check judges and how it words its verdict. */
export const DRIFT_RULES = {
  'DRIFT-001': {
    kind: 'field',
    expected: 'only the fields spec/openapi.yaml documents',
    passed: (n: number) => `no undocumented field in ${n} answers`,
  },
  'DRIFT-002': {
    kind: 'status',
    expected: 'only statuses spec/openapi.yaml documents for each operation',
    passed: (n: number) => `${n} answers, all statuses documented`,
  },
  'DRIFT-003': {
    kind: 'content-type',
    expected: 'only content types spec/openapi.yaml documents',
    passed: (n: number) => `${n} answers, all content types documented`,
  },
} as const satisfies Record<string, { kind: DriftKind; expected: string; passed: (n: number) => string }>;
export type DriftRuleId = keyof typeof DRIFT_RULES;

function judge(ctx: CheckContext, id: DriftRuleId) {
  const answers = ctx.client.exchanges.filter(
    (e) => isFinal(e) && judgeableBy(DRIFT_RULES[id].kind, e, ctx),
  ).length;
  return driftOutcome(id, observeDrift(ctx.client.exchanges, ctx), answers);
}

/** The verdict of one DRIFT check over these observations of `answers` judgeable answers. */
export function driftOutcome(id: DriftRuleId, observations: DriftObservation[], answers: number): Outcome {
  const { kind, expected, passed } = DRIFT_RULES[id];
  if (answers === 0) return inconclusive(expected, 'no answer of a documented operation');
  const mine = observations.filter((o) => o.finding.kind === kind);
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
      return judge(ctx, 'DRIFT-001');
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
      return judge(ctx, 'DRIFT-002');
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
      return judge(ctx, 'DRIFT-003');
    },
  },
];
