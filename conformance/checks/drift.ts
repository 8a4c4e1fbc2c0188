/**
 * Drift (issue 4, strict mode): what a deployment sends beyond the spec. Reported as advisory by
 * default; with --strict / CONFORMANCE_STRICT=1 each finding fails the run. Every difference is
 * listed once, grouped by operation and place.
 */
import { mediaTypesOf } from '../../spec/contract.ts';
import type { Exchange, ResponseData } from '../client.ts';
import type { Check, CheckContext } from '../types.ts';
import { inconclusive, verdict } from './outcome.ts';

type Answered = Exchange & { response: ResponseData };

/** Answers of documented operations with a body (HEAD excluded). */
function documented(ctx: CheckContext): { exchange: Answered; operationId: string }[] {
  return ctx.client.exchanges.flatMap((exchange) => {
    const operation = ctx.operations.operationOf(exchange);
    if (!operation || !exchange.response || exchange.request.method === 'HEAD') return [];
    return [{ exchange: exchange as Answered, operationId: operation.operationId }];
  });
}

/** Distinct findings in first-seen order, each with the first exchange that showed it. */
function distinct(findings: { key: string; exchange: Exchange }[]): { problems: string[]; first?: Exchange } {
  const seen = new Map<string, Exchange>();
  for (const f of findings) if (!seen.has(f.key)) seen.set(f.key, f.exchange);
  return { problems: [...seen.keys()], first: seen.values().next().value };
}

const UNDOCUMENTED = /must NOT have (?:additional|unevaluated) properties/;

export const driftChecks: Check[] = [
  {
    id: 'DRIFT-001',
    section: '§2, §4.1',
    title: 'No undocumented fields in any response object',
    area: 'drift',
    level: 'advisory',
    drift: true,
    traffic: true,
    hint: 'Remove the field, or document it in spec/openapi.yaml first.',
    async run(ctx) {
      const expected = 'only the fields spec/openapi.yaml documents';
      const answers = documented(ctx).filter(({ exchange }) => exchange.response.json !== undefined);
      if (answers.length === 0) return inconclusive(expected, 'no answer of a documented operation');
      const findings = answers.flatMap(({ exchange, operationId }) => {
        const { status, json } = exchange.response;
        const closed = ctx.closedContract.documentsStatus(operationId, status)
          ? ctx.closedContract.validateResponse(operationId, status, json)
          : status >= 400
            ? ctx.closedContract.validateSchema('ErrorEnvelope', json)
            : { valid: true, errors: [] };
        return closed.errors
          .filter((e) => UNDOCUMENTED.test(e))
          .map((e) => ({ key: `${operationId} ${status}: ${e.replace(/\/\d+(?=\/|\s)/g, '/*')}`, exchange }));
      });
      const { problems, first } = distinct(findings);
      return verdict(expected, problems, `no undocumented field in ${answers.length} answers`, first);
    },
  },
  {
    id: 'DRIFT-002',
    section: '§7',
    title: 'No undocumented status codes on the documented operations',
    area: 'drift',
    level: 'advisory',
    drift: true,
    traffic: true,
    hint: 'Answer with the statuses spec/openapi.yaml documents for the operation, or document the new one first.',
    async run(ctx) {
      const expected = 'only statuses spec/openapi.yaml documents for each operation';
      const answers = documented(ctx);
      if (answers.length === 0) return inconclusive(expected, 'no answer of a documented operation');
      const findings = answers
        .filter(
          ({ exchange, operationId }) => !ctx.contract.documentsStatus(operationId, exchange.response.status),
        )
        .map(({ exchange, operationId }) => ({
          key: `${operationId} answered ${exchange.response.status}`,
          exchange,
        }));
      const { problems, first } = distinct(findings);
      return verdict(expected, problems, `${answers.length} answers, all statuses documented`, first);
    },
  },
  {
    id: 'DRIFT-003',
    section: '§4',
    title: 'No undocumented content types on the documented operations',
    area: 'drift',
    level: 'advisory',
    drift: true,
    traffic: true,
    hint: 'Send the content type spec/openapi.yaml documents (application/json).',
    async run(ctx) {
      const expected = 'only content types spec/openapi.yaml documents';
      const answers = documented(ctx).filter(({ exchange }) => exchange.response.body !== '');
      if (answers.length === 0) return inconclusive(expected, 'no answer of a documented operation');
      const findings = answers.flatMap(({ exchange, operationId }) => {
        const { status, mediaType } = exchange.response;
        const operation = ctx.contract.operation(operationId);
        const allowed = ctx.contract.documentsStatus(operationId, status)
          ? mediaTypesOf(ctx.contract.doc, operation, String(status))
          : ['application/json'];
        return mediaType && allowed.includes(mediaType)
          ? []
          : [
              {
                key: `${operationId} ${status} sent ${mediaType ?? 'no content type'} (documented: ${allowed.join(', ') || 'no body'})`,
                exchange,
              },
            ];
      });
      const { problems, first } = distinct(findings);
      return verdict(expected, problems, `${answers.length} answers, all content types documented`, first);
    },
  },
];
