/**
 * Drift: every way the run's answers differ from spec/openapi.yaml, each difference once, grouped by
 * where it occurs (operation, status, JSON path or header) and counted over the answers that showed
 * it. The DRIFT checks judge the undocumented kinds from these findings and the reports list all of
 * them, so a report's drift section and the checks' verdicts cannot disagree.
 */
import type { ContractValidator } from '../spec/contract.ts';
import { mediaTypesOf, operationsOf } from '../spec/contract.ts';
import type { Operation } from '../spec/contract.ts';
import type { DriftFinding, DriftKind, DriftSection, Exchange, ResponseData } from './types.ts';
import { DRIFT_KINDS } from './types.ts';
import { shownExchange } from './core/evidence.ts';

/**
 * The check whose verdict each kind decides: the DRIFT checks (advisory, failures under --strict)
 * and ENVELOPE-005, the required check that every body matches its schema.
 */
const CHECK_OF: Record<DriftKind, string> = {
  field: 'DRIFT-001',
  status: 'DRIFT-002',
  'content-type': 'DRIFT-003',
  schema: 'ENVELOPE-005',
};

/** One finding with the exchange that first showed it (the checks report that exchange). */
export interface DriftObservation {
  finding: DriftFinding;
  first: Exchange;
}

export interface DriftContext {
  contract: ContractValidator;
  closedContract: ContractValidator;
  /** The documented operation of an exchange, or undefined. */
  operations: { operationOf(exchange: Exchange): Operation | undefined };
}

export const MAX_FINDINGS = 200;
/** Field names and messages come from the target: long ones are cut so a report stays readable. */
const MAX_TEXT = 160;

const UNDOCUMENTED = /^must NOT have (?:additional|unevaluated) properties$/;

interface Seen {
  finding: Omit<DriftFinding, 'responses' | 'of' | 'example'>;
  first: Exchange;
  responses: number;
}

/** A drift tally as a shard's result carries it. */
export interface DriftDump {
  seen: [string, Seen][];
  judgedBy: [string, number][];
  judged: number;
}

/** A run's traffic is judged once (by the DRIFT checks, then the report), and again if more was sent. */
const analysed = new WeakMap<readonly Exchange[], { sent: number; observations: DriftObservation[] }>();

/** Every difference of the exchanges from the spec, each once, in spec order of operation and status. */
export function observeDrift(exchanges: readonly Exchange[], ctx: DriftContext): DriftObservation[] {
  const known = analysed.get(exchanges);
  if (known && known.sent === exchanges.length) return known.observations;
  const observations = analyse(exchanges, ctx);
  analysed.set(exchanges, { sent: exchanges.length, observations });
  return observations;
}

function analyse(exchanges: readonly Exchange[], ctx: DriftContext): DriftObservation[] {
  const tally = new DriftTally(ctx);
  for (const exchange of exchanges) tally.add(exchange);
  return tally.observations();
}

/**
 * The analysis one exchange at a time, for traffic too large to hold (`--traffic`): each distinct
 * difference is kept once, with the first exchange that showed it and how many answers did.
 */
export class DriftTally {
  private readonly seen = new Map<string, Seen>();
  private readonly judgedBy = new Map<string, number>();
  /** Answers of documented operations judged so far. */
  judged = 0;

  constructor(private readonly ctx: DriftContext) {}

  add(exchange: Exchange): void {
    this.record(exchange, answerDrift(exchange, this.ctx));
  }

  /** An exchange whose answer was analysed already (`answerDrift`, maybe on another thread). */
  record(exchange: Exchange, drift: AnswerDrift | undefined): void {
    if (!drift) return;
    const { ctx, seen, judgedBy } = this;
    const { operationId, status } = drift;
    this.judged++;
    judgedBy.set(`${operationId} ${status}`, (judgedBy.get(`${operationId} ${status}`) ?? 0) + 1);
    const here = new Set<string>();
    for (const difference of drift.differences) {
      const key = [operationId, status, difference.kind, difference.where, difference.message].join('\u0000');
      if (here.has(key)) continue;
      here.add(key);
      const known = seen.get(key);
      if (known) known.responses++;
      else
        seen.set(key, {
          finding: {
            ...difference,
            check: difference.check ?? CHECK_OF[difference.kind],
            ...operationOf(ctx, operationId),
            status,
          },
          first: shownExchange(exchange),
          responses: 1,
        });
    }
  }

  /** The tally as a shard's result carries it. */
  dump(): DriftDump {
    return { seen: [...this.seen], judgedBy: [...this.judgedBy], judged: this.judged };
  }

  /** Joins another shard's tally into this one: counts added, the earlier exchange kept. */
  absorb(dump: DriftDump): void {
    this.judged += dump.judged;
    for (const [key, n] of dump.judgedBy) this.judgedBy.set(key, (this.judgedBy.get(key) ?? 0) + n);
    for (const [key, other] of dump.seen) {
      const known = this.seen.get(key);
      if (!known) this.seen.set(key, other);
      else {
        known.responses += other.responses;
        if (other.first.seq < known.first.seq) known.first = other.first;
      }
    }
  }

  /** Every difference so far, each once, in spec order of operation and status. */
  observations(): DriftObservation[] {
    const { ctx, seen, judgedBy } = this;
    const order = new Map(operationsOf(ctx.contract.doc).map((op, i) => [op.operationId, i]));
    return [...seen.values()]
      .sort(
        (a, b) =>
          (order.get(a.finding.operationId) ?? 0) - (order.get(b.finding.operationId) ?? 0) ||
          a.finding.status - b.finding.status ||
          DRIFT_KINDS.indexOf(a.finding.kind) - DRIFT_KINDS.indexOf(b.finding.kind) ||
          a.finding.where.localeCompare(b.finding.where),
      )
      .map(({ finding, first, responses }) => ({
        finding: {
          ...finding,
          responses,
          of: judgedBy.get(`${finding.operationId} ${finding.status}`) ?? responses,
          example: { method: first.request.method, url: first.request.url, curl: first.request.curl },
        },
        first,
      }));
  }
}

/** The report's drift section: the findings (at most MAX_FINDINGS) and how many answers were judged. */
export function driftSection(exchanges: readonly Exchange[], ctx: DriftContext): DriftSection {
  const observations = observeDrift(exchanges, ctx);
  const judged = exchanges.filter((e) => e.response && documentedOperation(e, ctx)).length;
  return sectionOf(observations, judged);
}

/** The drift section of these observations over `judged` answers. */
export function sectionOf(observations: DriftObservation[], judged: number): DriftSection {
  return {
    judged,
    findings: observations.slice(0, MAX_FINDINGS).map((o) => o.finding),
    omitted: Math.max(0, observations.length - MAX_FINDINGS),
  };
}

/** The key two runs' findings are compared by (counts and examples left out). */
export function driftKey(
  f: Pick<DriftFinding, 'operationId' | 'status' | 'kind' | 'where' | 'message'>,
): string {
  return `${f.operationId} ${f.status} ${f.where}: ${f.message}`;
}

/** How one answer of a documented operation differs from the spec, before it is counted. */
export interface AnswerDrift {
  operationId: string;
  status: number;
  differences: Difference[];
}

/** The differences of one exchange's answer; undefined when it is no documented operation's answer. */
export function answerDrift(exchange: Exchange, ctx: DriftContext): AnswerDrift | undefined {
  const known = analysedAnswers.get(exchange);
  if (known !== undefined) return known ?? undefined;
  const operationId = exchange.response ? documentedOperation(exchange, ctx) : undefined;
  const drift =
    operationId && exchange.response
      ? {
          operationId,
          status: exchange.response.status,
          differences: differencesOf(operationId, exchange.response, ctx),
        }
      : undefined;
  analysedAnswers.set(exchange, drift ?? null);
  return drift;
}

/**
 * Each answer is analysed once: the drift rules and the report's drift section read the same
 * analysis (schema validation is the dearest part of judging an answer).
 */
const analysedAnswers = new WeakMap<Exchange, AnswerDrift | null>();

/** Answers of documented operations with a body to judge: HEAD answers carry none. */
function documentedOperation(exchange: Exchange, ctx: DriftContext): string | undefined {
  if (exchange.request.method === 'HEAD') return undefined;
  return ctx.operations.operationOf(exchange)?.operationId;
}

function operationOf(
  ctx: DriftContext,
  operationId: string,
): { operationId: string; method: string; path: string } {
  const { method, path } = ctx.contract.operation(operationId);
  return { operationId, method, path };
}

type Difference = Pick<DriftFinding, 'kind' | 'where' | 'message'> & { check?: string };

function differencesOf(operationId: string, response: ResponseData, ctx: DriftContext): Difference[] {
  const { status } = response;
  const documented = ctx.contract.documentsStatus(operationId, status);
  const differences: Difference[] = [];
  if (!documented)
    differences.push({ kind: 'status', where: 'status', message: 'not documented for this operation' });

  const allowed = documented
    ? mediaTypesOf(ctx.contract.doc, ctx.contract.operation(operationId), String(status))
    : ['application/json'];
  if (response.body !== '' && !(response.mediaType && allowed.includes(response.mediaType))) {
    differences.push({
      kind: 'content-type',
      where: 'header Content-Type',
      message: `${cut(response.mediaType ?? 'none')} (documented: ${allowed.join(', ') || 'no body'})`,
    });
  }

  // Which schema applies, as ENVELOPE-005 decides it: the documented JSON body; for an undocumented
  // status, the error envelope (4xx, 5xx) or the success body.
  const judge = (contract: ContractValidator) =>
    documented
      ? allowed.includes('application/json')
        ? contract.validateResponse(operationId, status, response.json)
        : undefined
      : status >= 400
        ? contract.validateSchema('ErrorEnvelope', response.json)
        : contract.validateResponse(operationId, 200, response.json);
  if (response.json === undefined) {
    if (response.body !== '' && (!documented || allowed.includes('application/json'))) {
      differences.push({ kind: 'schema', where: '(body)', message: 'not JSON', check: 'ENVELOPE-004' });
    }
    return differences;
  }
  for (const error of judge(ctx.closedContract)?.errors ?? []) {
    const { path, message, detail } = parseError(error);
    if (UNDOCUMENTED.test(message) && detail !== undefined) {
      differences.push({
        kind: 'field',
        where: cut(`${path}/${pointerToken(detail)}`),
        message: 'not documented',
      });
    }
  }
  for (const error of judge(ctx.contract)?.errors ?? []) {
    const { path, message, detail } = parseError(error);
    const required = /^must have required property '(.*)'$/.exec(message);
    differences.push(
      required?.[1] !== undefined
        ? { kind: 'schema', where: cut(`${path}/${pointerToken(required[1])}`), message: 'required, missing' }
        : {
            kind: 'schema',
            where: cut(path || '(body)'),
            message: cut(detail ? `${message} (${detail})` : message),
          },
    );
  }
  return differences;
}

/**
 * Splits spec/contract.ts's `"/data/0 must NOT have additional properties (region)"` into the
 * path with array indexes as `*` (`/data/*`, empty for the body), the message and the detail.
 */
export function parseError(text: string): { path: string; message: string; detail?: string } {
  const match = /^(\S+) (.*?)(?: \((.*)\))?$/s.exec(text);
  if (!match) return { path: '', message: text };
  const path = match[1] === '(body)' ? '' : (match[1] ?? '').replace(/\/\d+(?=\/|$)/g, '/*');
  const parsed: { path: string; message: string; detail?: string } = { path, message: match[2] ?? '' };
  if (match[3] !== undefined) parsed.detail = match[3];
  return parsed;
}

/** A property name as a JSON Pointer token (RFC 6901). */
function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

function cut(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}
