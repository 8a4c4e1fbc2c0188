/**
 * Drift: every way the run's answers differ from spec/openapi.yaml, each difference once, grouped by
 * where it occurs (operation, status, JSON path or header) and counted over the answers that showed
 * it. The DRIFT checks judge the undocumented kinds from these findings and the reports list all of
 * them, so a report's drift section and the checks' verdicts cannot disagree.
 */
import type { ContractValidator, ValidationResult } from '../../spec/contract.ts';
import { mediaTypesOf, operationsOf } from '../../spec/contract.ts';
import type { Operation } from '../../spec/contract.ts';
import type { Exchange, ResponseData } from './exchange.ts';
import type { DriftFinding, DriftKind, DriftSection } from './report-model.ts';
import { isFinal } from './exchange.ts';
import { DRIFT_KINDS } from './report-model.ts';
import { BodyMemo } from './body-memo.ts';
import { shownExchange } from './evidence.ts';

/**
 * The rule whose verdict each kind of difference decides, and the rule of an answer that is not
 * JSON: the rules' own ids, which the rules layer holds (`rules/drift.ts`, `DRIFT_RULE_IDS`).
 */
export interface DriftRuleIds {
  kinds: Readonly<Record<DriftKind, string>>;
  notJson: string;
}

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
function observeDrift(
  exchanges: readonly Exchange[],
  ctx: DriftContext,
  ruleIds: DriftRuleIds,
): DriftObservation[] {
  const known = analysed.get(exchanges);
  if (known && known.sent === exchanges.length) return known.observations;
  const observations = analyse(exchanges, ctx, ruleIds);
  analysed.set(exchanges, { sent: exchanges.length, observations });
  return observations;
}

function analyse(
  exchanges: readonly Exchange[],
  ctx: DriftContext,
  ruleIds: DriftRuleIds,
): DriftObservation[] {
  const tally = new DriftTally(ctx, ruleIds);
  // A request tried again is judged by its last attempt (a 429 waited out is no drift).
  for (const exchange of exchanges) if (isFinal(exchange)) tally.add(exchange);
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

  private readonly ctx: DriftContext;
  private readonly ruleIds: DriftRuleIds;

  constructor(ctx: DriftContext, ruleIds: DriftRuleIds) {
    this.ctx = ctx;
    this.ruleIds = ruleIds;
  }

  add(exchange: Exchange): void {
    this.record(exchange, answerDrift(exchange, this.ctx));
  }

  /** An exchange whose answer was analysed already (`answerDrift`, maybe on another thread). */
  record(exchange: Exchange, drift: AnswerDrift | undefined): void {
    if (!drift) return;
    const { ctx, seen, judgedBy } = this;
    const { operationId, status } = drift;
    this.judged++;
    const answer = `${operationId} ${status}`;
    judgedBy.set(answer, (judgedBy.get(answer) ?? 0) + 1);
    if (drift.differences.length === 0) return;
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
            check: difference.notJson ? this.ruleIds.notJson : this.ruleIds.kinds[difference.kind],
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
export function driftSection(
  exchanges: readonly Exchange[],
  ctx: DriftContext,
  ruleIds: DriftRuleIds,
): DriftSection {
  const observations = observeDrift(exchanges, ctx, ruleIds);
  const judged = exchanges.filter((e) => isFinal(e) && e.response && documentedOperation(e, ctx)).length;
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
  const response = exchange.response;
  const drift =
    operationId && response
      ? {
          operationId,
          status: response.status,
          differences: bodyDifferences(
            ctx.contract,
            `${operationId} ${response.status} ${response.mediaType}`,
          ).of(response, () => differencesOf(exchange, operationId, ctx)),
        }
      : undefined;
  analysedAnswers.set(exchange, drift ?? null);
  return drift;
}

/**
 * The differences of the answers an operation gave with a status and a media type, remembered by
 * the body: they depend on nothing else, and a recording holds the same answers again and again.
 */
const differencesByAnswer = new WeakMap<ContractValidator, Map<string, BodyMemo<Difference[]>>>();
const bodyDifferences = (contract: ContractValidator, answer: string) =>
  memoOfAnswer(differencesByAnswer, contract, answer);

/**
 * Each answer is analysed once: the drift rules and the report's drift section read the same
 * analysis (schema validation is the dearest part of judging an answer).
 */
const analysedAnswers = new WeakMap<Exchange, AnswerDrift | null>();

/** The memo of one kind of answer (`operation status ...`) of a contract, made on first use. */
function memoOfAnswer<T>(
  memos: WeakMap<ContractValidator, Map<string, BodyMemo<T>>>,
  contract: ContractValidator,
  answer: string,
): BodyMemo<T> {
  let byAnswer = memos.get(contract);
  if (!byAnswer) {
    byAnswer = new Map();
    memos.set(contract, byAnswer);
  }
  let memo = byAnswer.get(answer);
  if (!memo) {
    memo = new BodyMemo<T>();
    byAnswer.set(answer, memo);
  }
  return memo;
}

/**
 * An answer's body validated against its schema as ENVELOPE-005 chooses it (the documented JSON
 * body; for an undocumented status, the error envelope or the success body): with objects closed
 * (an undocumented field is an error: drift) and open (what the spec requires: ENVELOPE-005).
 */
export interface AnswerValidation {
  closed: ValidationResult;
  open: ValidationResult;
}

/** Each answer is validated once, for the drift analysis and ENVELOPE-005 alike. */
const validations = new WeakMap<Exchange, AnswerValidation | null>();

/**
 * The validation of an answer's JSON body, or undefined when its status documents no JSON body (or
 * it has none). A body the closed schema accepts, the open one accepts too, unless the spec uses a
 * keyword for which fewer matches can pass (`not`, `oneOf`, `if`, `maxContains`): then the open
 * schema is asked as well. Most answers are thus validated once.
 */
export function validationOf(
  exchange: Exchange,
  operationId: string,
  ctx: Pick<DriftContext, 'contract' | 'closedContract'>,
): AnswerValidation | undefined {
  const known = validations.get(exchange);
  if (known !== undefined) return known ?? undefined;
  const response = exchange.response;
  const validation =
    response && response.json !== undefined
      ? bodyValidations(ctx.contract, operationId, response.status).of(
          response,
          () => validate(response.json, operationId, response.status, ctx) ?? null,
        )
      : null;
  validations.set(exchange, validation);
  return validation ?? undefined;
}

function validate(
  json: unknown,
  operationId: string,
  status: number,
  ctx: Pick<DriftContext, 'contract' | 'closedContract'>,
): AnswerValidation | undefined {
  const documented = ctx.contract.documentsStatus(operationId, status);
  const isJson = allowedTypes(ctx.contract, operationId, status).includes('application/json');
  const judge = (contract: ContractValidator) =>
    documented
      ? isJson
        ? contract.validateResponse(operationId, status, json)
        : undefined
      : status >= 400
        ? contract.validateSchema('ErrorEnvelope', json)
        : contract.validateResponse(operationId, 200, json);
  const closed = judge(ctx.closedContract);
  const open = closed?.valid && closedImpliesOpen(ctx.contract) ? closed : judge(ctx.contract);
  return closed && open ? { closed, open } : undefined;
}

/**
 * The validations of the bodies an operation answered with a status, remembered by the body: a
 * recording holds the same answers again and again, and validation is the dearest part of judging one.
 */
const validationsByAnswer = new WeakMap<ContractValidator, Map<string, BodyMemo<AnswerValidation | null>>>();
const bodyValidations = (contract: ContractValidator, operationId: string, status: number) =>
  memoOfAnswer(validationsByAnswer, contract, `${operationId} ${status}`);

/** Whether every body a spec's closed schemas accept its open schemas accept too (no keyword that turns on fewer matches). */
const monotone = new WeakMap<ContractValidator, boolean>();
function closedImpliesOpen(contract: ContractValidator): boolean {
  let known = monotone.get(contract);
  if (known === undefined) {
    known = !/"(not|oneOf|if|maxContains)":/.test(JSON.stringify(contract.doc));
    monotone.set(contract, known);
  }
  return known;
}

/** The media types an operation documents for a status (the JSON type for an undocumented one), worked out once. */
const typesOf = new WeakMap<ContractValidator, Map<string, string[]>>();
function allowedTypes(contract: ContractValidator, operationId: string, status: number): string[] {
  let byAnswer = typesOf.get(contract);
  if (!byAnswer) {
    byAnswer = new Map();
    typesOf.set(contract, byAnswer);
  }
  const key = `${operationId} ${status}`;
  let types = byAnswer.get(key);
  if (!types) {
    types = contract.documentsStatus(operationId, status)
      ? mediaTypesOf(contract.doc, contract.operation(operationId), String(status))
      : ['application/json'];
    byAnswer.set(key, types);
  }
  return types;
}

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

type Difference = Pick<DriftFinding, 'kind' | 'where' | 'message'> & { notJson?: true };

function differencesOf(exchange: Exchange, operationId: string, ctx: DriftContext): Difference[] {
  const response = exchange.response as ResponseData;
  const { status } = response;
  const documented = ctx.contract.documentsStatus(operationId, status);
  const differences: Difference[] = [];
  if (!documented)
    differences.push({ kind: 'status', where: 'status', message: 'not documented for this operation' });

  const allowed = allowedTypes(ctx.contract, operationId, status);
  if (response.body !== '' && !(response.mediaType && allowed.includes(response.mediaType))) {
    differences.push({
      kind: 'content-type',
      where: 'header Content-Type',
      message: `${cut(response.mediaType ?? 'none')} (documented: ${allowed.join(', ') || 'no body'})`,
    });
  }

  if (response.json === undefined) {
    if (response.body !== '' && (!documented || allowed.includes('application/json'))) {
      differences.push({ kind: 'schema', where: '(body)', message: 'not JSON', notJson: true });
    }
    return differences;
  }
  const validation = validationOf(exchange, operationId, ctx);
  for (const error of validation?.closed.errors ?? []) {
    const { path, message, detail } = parseError(error);
    if (UNDOCUMENTED.test(message) && detail !== undefined) {
      differences.push({
        kind: 'field',
        where: cut(`${path}/${pointerToken(detail)}`),
        message: 'not documented',
      });
    }
  }
  for (const error of validation?.open.errors ?? []) {
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
