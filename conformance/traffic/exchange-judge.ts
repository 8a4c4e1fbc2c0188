/**
 * What one recorded exchange shows on its own: the live checks and the per-answer rules over it,
 * its drift from the spec, and the few facts of it the cross-exchange rules need. The verdict is
 * plain data, so an exchange can be judged on a worker thread (`judge-pool.ts`) and its verdict
 * merged on the main thread in file order (`TrafficJudge.add`): the report is the same whichever
 * thread judged which exchange.
 */
import type { ContractValidator, Operation, ValidationResult } from '../../spec/contract.ts';
import { stopStatusesOf } from '../../spec/contract.ts';
import { isObject } from '../../spec/json-value.ts';
import type { Check, CheckContext } from '../checks/check.ts';
import { DRIFT_RULES, judgeableBy } from '../checks/drift.ts';
import { checkById } from '../checks/registry.ts';
import type { HttpClient } from '../client.ts';
import { type AnswerDrift, answerDrift } from '../drift.ts';
import { type OperationMatcher, operationMatcher } from '../operations.ts';
import type { Exchange, SuiteConfig } from '../types.ts';
import { summaryText } from './cross.ts';
import { evidenceOf, lineOf, type PlainExchange } from './entry.ts';
import type { Answered, ExchangeRule } from './rules.ts';
import {
  EXCHANGE_RULES,
  limitBound,
  linksOfAnswer,
  READ_METHODS,
  TRAFFIC_CHECK_IDS,
  TRAFFIC_DRIFT_IDS,
  writeProblem,
} from './rules.ts';

/** A live check's verdict on one exchange (inconclusive ones are left out). */
export interface CheckVerdict {
  id: string;
  expected: string;
  /** What the check counted, when it says (`judged.unit`). */
  unit?: string;
  records: number;
  problems: string[];
}

/** What the cross-exchange rules (`cross.ts`) need of one answer. */
export interface CrossFacts {
  /** A detail answered 200 or 404: the walk id its path asked for. */
  detailOf?: string;
  /**
   * A list answered 200: its walks' ids and summaries (`summaryText`), its size and the bound it
   * was asked. `sameAsLast`: the body is that of the last list this judge saw, whose ids and
   * summaries are not sent again (they are the bulk of a verdict); `RepeatedLists` puts them back.
   */
  list?: {
    ids: string[];
    summaries: string[];
    sameAsLast?: true;
    size: number;
    limit: { bound: number; valid: boolean };
    /** The campaign slug each walk's links name. */
    slugs: string[];
  };
  /** A detail answered 200 with an id: its name and what the rules read of its stops. */
  detail?: { id: string; name: unknown; stops?: unknown[] };
}

export interface ExchangeVerdict {
  exchange: PlainExchange;
  /** Who asked (`keyIdentity`), never shown. */
  identity: string | undefined;
  drift: AnswerDrift | undefined;
  /** The DRIFT checks that could judge this answer. */
  driftJudgeable: string[];
  checks: CheckVerdict[];
  /** A write's problems (empty when it was refused); undefined for a read. */
  write?: string[];
  /** The documented operation answered (undefined for HEAD and for any other path). */
  operationId?: string;
  rules: { id: string; problems: string[] }[];
  cross?: CrossFacts;
}

export interface ExchangeJudgeOptions {
  baseUrl: string;
  strict: boolean;
  /** The ids to judge (every rule when undefined). */
  selected?: ReadonlySet<string>;
  contract: ContractValidator;
  closedContract: ContractValidator;
}

type Verdict = { body: unknown; key: string; result: ValidationResult };

/** A validator remembering its last verdict, and answering from `known` when that one settles it. */
function remembering(
  contract: ContractValidator,
  known: (body: unknown, key: string) => ValidationResult | undefined,
): ContractValidator & { last?: Verdict } {
  const validator: ContractValidator & { last?: Verdict } = {
    doc: contract.doc,
    operation: (operationId) => contract.operation(operationId),
    documentsStatus: (operationId, status) => contract.documentsStatus(operationId, status),
    validateSchema: (name, value) => contract.validateSchema(name, value),
    validateResponse(operationId, status, body) {
      const key = `${operationId} ${status}`;
      const last = validator.last;
      if (last && last.body === body && last.key === key) return last.result;
      const result = known(body, key) ?? contract.validateResponse(operationId, status, body);
      validator.last = { body, key, result };
      return result;
    },
  };
  return validator;
}

/**
 * The open and closed validators of one judge, sparing the dearest step (validating a list of 200
 * walks): the drift analysis validates each answer closed, then open, and ENVELOPE-005 open again.
 * The closed schemas are the open ones plus "no other property", so an answer the closed validator
 * accepts the open one accepts too; and an answer's open verdict is remembered for ENVELOPE-005.
 */
function pairedValidators(open: ContractValidator, closed: ContractValidator) {
  const closedOne = remembering(closed, () => undefined);
  const openOne = remembering(open, (body, key) => {
    const last = closedOne.last;
    return last && last.body === body && last.key === key && last.result.valid ? last.result : undefined;
  });
  return { open: openOne, closed: closedOne };
}

/** The walk id of a detail request: the last segment of its path. */
function walkIdOf(url: string): string {
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Judges exchanges of one API base URL, one at a time, each on its own. */
export class ExchangeJudge {
  readonly operations: OperationMatcher;
  private readonly checks: Check[];
  private readonly rules: readonly ExchangeRule[];
  private readonly statuses: string[];
  private readonly context: CheckContext;
  /** The body of the last list answer judged. */
  private lastList: string | undefined;

  constructor(options: ExchangeJudgeOptions) {
    const { open, closed } = pairedValidators(options.contract, options.closedContract);
    const wanted = (id: string) => !options.selected || options.selected.has(id);
    this.operations = operationMatcher(open, options.baseUrl);
    this.statuses = stopStatusesOf(options.contract.doc);
    this.checks = TRAFFIC_CHECK_IDS.filter(wanted).map(checkById);
    this.rules = EXCHANGE_RULES.filter((r) => wanted(r.id));
    this.context = {
      config: { baseUrl: options.baseUrl, strict: options.strict, keys: {} } as SuiteConfig,
      // The one exchange being judged is the run's traffic: the reused live checks read
      // `client.exchanges`, the operations and the contracts, and send nothing.
      client: { exchanges: [] } as unknown as HttpClient,
      // No check judged here fetches: a recording has no one to ask.
      data: undefined as unknown as CheckContext['data'],
      contract: open,
      closedContract: closed,
      operations: this.operations,
    };
  }

  async judge(exchange: Answered, identity: string | undefined): Promise<ExchangeVerdict> {
    // Drift first: its closed validation spares ENVELOPE-005 its own (`pairedValidators`).
    const drift = answerDrift(exchange, this.context);
    const driftJudgeable = TRAFFIC_DRIFT_IDS.filter((id) =>
      judgeableBy(DRIFT_RULES[id].kind, exchange, this.context),
    );
    const verdict: ExchangeVerdict = {
      exchange: evidenceOf(exchange),
      identity,
      drift,
      driftJudgeable,
      checks: await this.checkVerdicts(exchange),
      rules: [],
    };
    if (!READ_METHODS.has(exchange.request.method)) {
      const problem = writeProblem(exchange);
      const line = lineOf(exchange);
      verdict.write = problem ? [`${line}: ${problem}`] : [];
    }
    const operation = this.operations.operationOf(exchange);
    if (!operation || exchange.request.method === 'HEAD') return verdict;
    verdict.operationId = operation.operationId;
    verdict.rules = this.ruleVerdicts(operation, exchange);
    const cross = this.crossFactsOf(operation.operationId, exchange);
    if (cross) verdict.cross = cross;
    return verdict;
  }

  private async checkVerdicts(exchange: Answered): Promise<CheckVerdict[]> {
    const exchanges = this.context.client.exchanges as Exchange[];
    exchanges[0] = exchange;
    const verdicts: CheckVerdict[] = [];
    for (const check of this.checks) {
      const outcome = await check.run(this.context);
      if (outcome.status === 'inconclusive') continue;
      const problems = outcome.status === 'fail' ? (outcome.details ?? [outcome.actual]) : [];
      const verdict: CheckVerdict = {
        id: check.id,
        expected: outcome.expected,
        records: outcome.judged?.records ?? 1,
        problems: problems.map((p) => `#${exchange.seq} ${p}`),
      };
      if (outcome.judged) verdict.unit = outcome.judged.unit;
      verdicts.push(verdict);
    }
    exchanges.length = 0;
    return verdicts;
  }

  private ruleVerdicts(operation: Operation, exchange: Answered): ExchangeVerdict['rules'] {
    const { json, status } = exchange.response;
    if (json === undefined) return [];
    const line = lineOf(exchange);
    return this.rules
      .filter((rule) => rule.appliesTo(operation.operationId, status))
      .map((rule) => ({
        id: rule.id,
        problems: rule.judge(json, exchange, this.statuses, operation).map((p) => `${line}: ${p}`),
      }));
  }

  /** What the cross-exchange rules read of an answer of `operationId`; undefined when nothing. */
  private crossFactsOf(operationId: string, exchange: Answered): CrossFacts | undefined {
    const { status, json } = exchange.response;
    const facts: CrossFacts = {};
    if (operationId === 'getWalk' && (status === 200 || status === 404))
      facts.detailOf = walkIdOf(exchange.request.url);
    const data = status === 200 && isObject(json) ? json.data : undefined;
    if (operationId === 'listWalks' && Array.isArray(data)) facts.list = this.listFacts(exchange, data);
    else if (operationId === 'getWalk' && isObject(data) && typeof data.id === 'string') {
      const detail: NonNullable<CrossFacts['detail']> = { id: data.id, name: data.name };
      // Only what the rules read of each stop.
      if (Array.isArray(data.stops))
        detail.stops = data.stops.map((s) =>
          isObject(s) ? { lat: s.lat, lng: s.lng, status: s.status } : s,
        );
      facts.detail = detail;
    }
    return facts.detailOf === undefined && !facts.list && !facts.detail ? undefined : facts;
  }

  /** A list's facts; its walks' only when its body is not the last list's (polled, unchanged). */
  private listFacts(exchange: Answered, data: unknown[]): NonNullable<CrossFacts['list']> {
    const { bound, valid } = limitBound(exchange.request.url);
    const { body, json } = exchange.response;
    const shared = {
      size: data.length,
      limit: { bound, valid },
      slugs: linksOfAnswer(json).links.map((l) => l.web.slug),
    };
    if (this.lastList === body) return { ids: [], summaries: [], sameAsLast: true, ...shared };
    this.lastList = body;
    const walks = data.filter((w): w is Record<string, unknown> => isObject(w) && typeof w.id === 'string');
    return { ids: walks.map((w) => w.id as string), summaries: walks.map(summaryText), ...shared };
  }
}
