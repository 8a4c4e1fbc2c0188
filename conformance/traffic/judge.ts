/**
 * Judges the recorded exchanges of one API base URL as they are read, keeping only tallies: per
 * rule, how many answers it judged, the findings (bounded) and the first exchange that showed one.
 * At the end the tallies become the same results a live run reports, so every reporter, the
 * expected failures and the comparison work on them unchanged.
 */
import type { ContractValidator, Operation, ValidationResult } from '../../spec/contract.ts';
import { stopStatusesOf } from '../../spec/contract.ts';
import type { Check, CheckContext } from '../checks/check.ts';
import { DRIFT_RULES, driftOutcome, judgeableBy } from '../checks/drift.ts';
import { counted, inconclusive, verdict } from '../checks/outcome.ts';
import { checkById } from '../checks/registry.ts';
import type { HttpClient } from '../client.ts';
import { DriftTally, type DriftObservation } from '../drift.ts';
import { type OperationMatcher, operationMatcher } from '../operations.ts';
import type { CheckDeclaration } from '../runner.ts';
import { resultOf } from '../runner.ts';
import { isObject } from '../../spec/json-value.ts';
import type { CheckResult, Exchange, OperationCoverage, Outcome, SuiteConfig } from '../types.ts';
import {
  LIST_SIZES,
  LISTED_FOUND,
  ListedWalks,
  ListSizes,
  WalkOwners,
  WalkPairs,
  WALK_ISOLATION,
  type CrossTally,
} from './cross.ts';
import type { Answered, ExchangeRule } from './rules.ts';
import {
  EXCHANGE_RULES,
  limitBound,
  linksOfAnswer,
  READ_METHODS,
  TRAFFIC_CHECK_IDS,
  TRAFFIC_DRIFT_IDS,
  writeProblem,
  WRITES_REFUSED,
} from './rules.ts';

/** The walk id of a detail request: the last segment of its path. */
function walkIdOf(url: string): string {
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Findings kept per rule; the count of the rest is still reported. */
const MAX_PROBLEMS = 500;

/** Every rule `--traffic` judges, in report order. */
export function trafficRules(): CheckDeclaration[] {
  const cross = ['WALK-DETAIL-002', 'CONSISTENCY-001', 'CONSISTENCY-002', 'CONSISTENCY-003'].map(checkById);
  return [
    ...TRAFFIC_CHECK_IDS.map(checkById),
    ...EXCHANGE_RULES,
    ...cross,
    WALK_ISOLATION,
    LIST_SIZES,
    LISTED_FOUND,
    WRITES_REFUSED,
    ...TRAFFIC_DRIFT_IDS.map(checkById),
  ];
}

/** What one rule has seen so far. */
interface Tally {
  rule: CheckDeclaration;
  expected: string;
  unit: string;
  /** Answers judged, and records in them (walks, for the per-walk rules). */
  answers: number;
  records: number;
  problems: string[];
  /** Findings beyond MAX_PROBLEMS, counted only. */
  more: number;
  first?: Exchange;
  example?: Exchange;
}

function newTally(rule: CheckDeclaration, expected: string, unit: string): Tally {
  return { rule, expected, unit, answers: 0, records: 0, problems: [], more: 0 };
}

function record(tally: Tally, exchange: Exchange, problems: string[], records = 1): void {
  tally.answers++;
  tally.records += records;
  tally.example ??= exchange;
  if (problems.length === 0) return;
  tally.first ??= exchange;
  for (const problem of problems) {
    if (tally.problems.length < MAX_PROBLEMS) tally.problems.push(problem);
    else tally.more++;
  }
}

function outcomeOf(tally: Tally | CrossTally): Outcome {
  const answers = 'answers' in tally ? tally.answers : tally.judged;
  if (answers === 0) return inconclusive(tally.expected, 'the file holds no answer this rule applies to');
  const more = 'more' in tally && tally.more > 0 ? [`… and ${tally.more} more`] : [];
  const records = 'records' in tally ? tally.records : tally.judged;
  return counted(
    verdict(
      tally.expected,
      [...tally.problems, ...more],
      `${records} ${tally.unit} in the recording hold`,
      tally.first ?? tally.example,
    ),
    { requests: answers, records, unit: tally.unit },
  );
}

export interface JudgeOptions {
  baseUrl: string;
  strict: boolean;
  seed: number;
  /** The ids to judge (all of `trafficRules()` when undefined). */
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

export class TrafficJudge {
  readonly operations: OperationMatcher;
  /** Entries of this API seen, and those not judged, by reason. */
  entries = 0;
  judged = 0;
  readonly notJudged = new Map<string, number>();
  private readonly checks: { check: Check; tally: Tally }[];
  private readonly rules: { rule: ExchangeRule; tally: Tally }[];
  private readonly drift: DriftTally;
  private readonly driftAnswers = new Map<string, number>();
  private readonly pairs: WalkPairs;
  private readonly owners = new WalkOwners();
  private readonly sizes = new ListSizes();
  private readonly listed = new ListedWalks();
  private readonly writes = newTally(WRITES_REFUSED, 'every write answered with a 4xx', 'writes');
  private readonly statuses: string[];
  private readonly seenStatuses = new Map<string, Map<string, number>>();
  private readonly context: CheckContext;

  constructor(private readonly options: JudgeOptions) {
    const { open, closed } = pairedValidators(options.contract, options.closedContract);
    this.options = { ...options, contract: open, closedContract: closed };
    const wanted = (id: string) => !options.selected || options.selected.has(id);
    this.operations = operationMatcher(this.options.contract, options.baseUrl);
    this.statuses = stopStatusesOf(options.contract.doc);
    this.checks = TRAFFIC_CHECK_IDS.filter(wanted).map((id) => {
      const check = checkById(id);
      return { check, tally: newTally(check, check.title, 'answers') };
    });
    this.rules = EXCHANGE_RULES.filter((r) => wanted(r.id)).map((rule) => ({
      rule,
      tally: newTally(rule, rule.expected, rule.unit),
    }));
    this.drift = new DriftTally({ ...this.options, operations: this.operations });
    this.pairs = new WalkPairs(this.statuses);
    this.context = this.contextFor();
  }

  /**
   * What the reused live checks are given: the one exchange being judged as the run's traffic.
   * They read `client.exchanges`, the operations and the contracts, and send nothing.
   */
  private contextFor(): CheckContext {
    const exchanges: Exchange[] = [];
    const config = { baseUrl: this.options.baseUrl, strict: this.options.strict, keys: {} } as SuiteConfig;
    return {
      config,
      client: { exchanges } as unknown as HttpClient,
      // No check judged here fetches: a recording has no one to ask.
      data: undefined as unknown as CheckContext['data'],
      contract: this.options.contract,
      closedContract: this.options.closedContract,
      operations: this.operations,
    };
  }

  notJudgedEntry(reason: string): void {
    this.entries++;
    this.notJudged.set(reason, (this.notJudged.get(reason) ?? 0) + 1);
  }

  async add(exchange: Answered, identity: string | undefined): Promise<void> {
    this.entries++;
    this.judged++;
    // Drift first: its closed validation spares ENVELOPE-005 its own (`pairedValidators`).
    this.addDrift(exchange);
    const exchanges = this.context.client.exchanges as Exchange[];
    exchanges[0] = exchange;
    for (const { check, tally } of this.checks) {
      const outcome = await check.run(this.context);
      if (outcome.status === 'inconclusive') continue;
      if (tally.expected === check.title) tally.expected = outcome.expected;
      if (outcome.judged) tally.unit = outcome.judged.unit;
      const problems = outcome.status === 'fail' ? (outcome.details ?? [outcome.actual]) : [];
      record(
        tally,
        exchange,
        problems.map((p) => `#${exchange.seq} ${p}`),
        outcome.judged?.records ?? 1,
      );
    }
    exchanges.length = 0;
    if (!READ_METHODS.has(exchange.request.method)) {
      const problem = writeProblem(exchange);
      const line = `#${exchange.seq} ${exchange.request.method} ${exchange.request.url}`;
      record(this.writes, exchange, problem ? [`${line}: ${problem}`] : []);
    }
    const operation = this.operations.operationOf(exchange);
    if (!operation || exchange.request.method === 'HEAD') return;
    this.countStatus(operation.operationId, exchange.response.status);
    this.addRules(operation, exchange);
    this.addCross(operation.operationId, exchange, identity);
  }

  private addDrift(exchange: Answered): void {
    this.drift.add(exchange);
    for (const id of TRAFFIC_DRIFT_IDS) {
      if (judgeableBy(DRIFT_RULES[id].kind, exchange, this))
        this.driftAnswers.set(id, (this.driftAnswers.get(id) ?? 0) + 1);
    }
  }

  private countStatus(operationId: string, status: number): void {
    const seen = this.seenStatuses.get(operationId) ?? new Map<string, number>();
    seen.set(String(status), (seen.get(String(status)) ?? 0) + 1);
    this.seenStatuses.set(operationId, seen);
  }

  private addRules(operation: Operation, exchange: Answered): void {
    const { operationId } = operation;
    const { json } = exchange.response;
    const line = `#${exchange.seq} ${exchange.request.method} ${exchange.request.url}`;
    for (const { rule, tally } of this.rules) {
      if (!rule.appliesTo(operationId, exchange.response.status)) continue;
      if (json === undefined) continue;
      const problems = rule.judge(json, exchange, this.statuses, operation);
      record(
        tally,
        exchange,
        problems.map((p) => `${line}: ${p}`),
      );
    }
  }

  private addCross(operationId: string, exchange: Answered, identity: string | undefined): void {
    const { status } = exchange.response;
    if (operationId === 'getWalk' && (status === 200 || status === 404))
      this.listed.addDetail(walkIdOf(exchange.request.url), status, exchange, identity);
    if (status !== 200) return;
    const data = isObject(exchange.response.json) ? exchange.response.json.data : undefined;
    if (operationId === 'listWalks' && Array.isArray(data)) {
      this.pairs.addList(data, exchange);
      this.listed.addList(data, exchange, identity);
      // A bad limit's answer is the deployment's choice (§8): it says nothing of the campaign's size.
      const limit = limitBound(exchange.request.url);
      if (limit.valid) this.sizes.add(data.length, limit.bound, exchange, identity);
      this.owners.add(
        data,
        exchange,
        identity,
        linksOfAnswer(exchange.response.json).links.map((l) => l.web.slug),
      );
    } else if (operationId === 'getWalk' && isObject(data)) {
      this.pairs.addDetail(data, exchange);
      this.owners.add([data], exchange, identity);
    }
  }

  /** The results, in report order, of the selected rules. */
  results(): CheckResult[] {
    const strict = this.options.strict;
    const wanted = (id: string) => !this.options.selected || this.options.selected.has(id);
    const observations = this.observations();
    const outcomes = new Map<string, Outcome>([
      ...this.checks.map(({ check, tally }) => [check.id, outcomeOf(tally)] as const),
      ...this.rules.map(({ rule, tally }) => [rule.id, outcomeOf(tally)] as const),
      [WRITES_REFUSED.id, outcomeOf(this.writes)],
      ...[...this.pairs.tallies, this.owners.finish(), this.sizes.tally, this.listed.tally].map(
        (t) => [t.rule.id, outcomeOf(t)] as const,
      ),
      ...TRAFFIC_DRIFT_IDS.map(
        (id) => [id, driftOutcome(id, observations, this.driftAnswers.get(id) ?? 0)] as const,
      ),
    ]);
    return trafficRules()
      .filter((rule) => wanted(rule.id))
      .map((rule) => resultOf(rule, outcomes.get(rule.id) as Outcome, strict, 0));
  }

  observations(): DriftObservation[] {
    return this.drift.observations();
  }

  get driftJudged(): number {
    return this.drift.judged;
  }

  /** Per documented operation, each documented status and how many recorded answers showed it. */
  statusCoverage(): OperationCoverage[] {
    return this.operations.statusCoverage([]).map((operation) => {
      const seen = this.seenStatuses.get(operation.operationId) ?? new Map<string, number>();
      const documented = new Set(operation.statuses.map((s) => s.status));
      return {
        ...operation,
        statuses: operation.statuses.map(({ status }) => ({ status, observed: seen.get(status) ?? 0 })),
        undocumented: [...seen]
          .filter(([status]) => !documented.has(status))
          .map(([status, observed]) => ({ status, observed })),
      };
    });
  }
}
