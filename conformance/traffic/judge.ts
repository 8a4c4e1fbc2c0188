/**
 * The tallies of the recorded exchanges of one API base URL, kept as their verdicts come in file
 * order (`exchange-judge.ts` judges each one, on this thread or a worker's): per rule, how many
 * answers it judged, the findings (bounded) and the first exchange that showed one; and the
 * cross-exchange rules (`cross.ts`), which read the facts of the answers in the order they were
 * recorded. At the end the tallies become the same results a live run reports, so every reporter,
 * the expected failures and the comparison work on them unchanged.
 */
import type { ContractValidator } from '../../spec/contract.ts';
import { stopStatusesOf } from '../../spec/contract.ts';
import { driftOutcome } from '../checks/drift.ts';
import { counted, inconclusive, verdict } from '../checks/outcome.ts';
import { checkById } from '../checks/registry.ts';
import { DriftTally, type DriftObservation } from '../drift.ts';
import { type OperationMatcher, operationMatcher } from '../operations.ts';
import type { CheckDeclaration } from '../runner.ts';
import { resultOf } from '../runner.ts';
import type { CheckResult, Exchange, OperationCoverage, Outcome } from '../types.ts';
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
import { withCurl } from './entry.ts';
import type { CrossFacts, ExchangeVerdict } from './exchange-judge.ts';
import { EXCHANGE_RULES, TRAFFIC_CHECK_IDS, TRAFFIC_DRIFT_IDS, WRITES_REFUSED } from './rules.ts';

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
  /** The ids to judge (all of `trafficRules()` when undefined). */
  selected?: ReadonlySet<string>;
  contract: ContractValidator;
  closedContract: ContractValidator;
}

export class TrafficJudge {
  readonly operations: OperationMatcher;
  /** Entries of this API seen, and those not judged, by reason. */
  entries = 0;
  judged = 0;
  readonly notJudged = new Map<string, number>();
  private readonly checks: Map<string, { check: CheckDeclaration; tally: Tally }>;
  private readonly rules: Map<string, Tally>;
  private readonly drift: DriftTally;
  private readonly driftAnswers = new Map<string, number>();
  private readonly pairs: WalkPairs;
  private readonly owners = new WalkOwners();
  private readonly sizes = new ListSizes();
  private readonly listed = new ListedWalks();
  private readonly writes = newTally(WRITES_REFUSED, 'every write answered with a 4xx', 'writes');
  private readonly seenStatuses = new Map<string, Map<string, number>>();

  private readonly options: JudgeOptions;

  constructor(options: JudgeOptions) {
    this.options = options;
    const wanted = (id: string) => !options.selected || options.selected.has(id);
    this.operations = operationMatcher(options.contract, options.baseUrl);
    this.checks = new Map(
      TRAFFIC_CHECK_IDS.filter(wanted).map((id) => {
        const check = checkById(id);
        return [id, { check, tally: newTally(check, check.title, 'answers') }];
      }),
    );
    this.rules = new Map(
      EXCHANGE_RULES.filter((r) => wanted(r.id)).map((rule) => [
        rule.id,
        newTally(rule, rule.expected, rule.unit),
      ]),
    );
    this.drift = new DriftTally({ ...options, operations: this.operations });
    this.pairs = new WalkPairs(stopStatusesOf(options.contract.doc));
  }

  notJudgedEntry(reason: string): void {
    this.entries++;
    this.notJudged.set(reason, (this.notJudged.get(reason) ?? 0) + 1);
  }

  /** The verdict of the next judged exchange of the file. */
  add(verdict: ExchangeVerdict): void {
    this.entries++;
    this.judged++;
    const exchange: Exchange = { ...verdict.exchange, request: withCurl(verdict.exchange.request) };
    this.drift.record(exchange, verdict.drift);
    for (const id of verdict.driftJudgeable) this.driftAnswers.set(id, (this.driftAnswers.get(id) ?? 0) + 1);
    for (const { id, expected, unit, records, problems } of verdict.checks) {
      const { check, tally } = this.checks.get(id) as { check: CheckDeclaration; tally: Tally };
      if (tally.expected === check.title) tally.expected = expected;
      if (unit !== undefined) tally.unit = unit;
      record(tally, exchange, problems, records);
    }
    if (verdict.write) record(this.writes, exchange, verdict.write);
    if (verdict.operationId === undefined) return;
    this.countStatus(verdict.operationId, exchange.response?.status ?? 0);
    for (const { id, problems } of verdict.rules) record(this.rules.get(id) as Tally, exchange, problems);
    if (verdict.cross) this.addCross(verdict.cross, exchange, verdict.identity);
  }

  private countStatus(operationId: string, status: number): void {
    const seen = this.seenStatuses.get(operationId) ?? new Map<string, number>();
    seen.set(String(status), (seen.get(String(status)) ?? 0) + 1);
    this.seenStatuses.set(operationId, seen);
  }

  private addCross(cross: CrossFacts, exchange: Exchange, identity: string | undefined): void {
    const status = exchange.response?.status ?? 0;
    if (cross.detailOf !== undefined) this.listed.addDetail(cross.detailOf, status, exchange, identity);
    if (cross.list) {
      const { ids, summaries, size, limit, slugs } = cross.list;
      this.pairs.addList(ids, summaries, exchange);
      this.listed.addList(ids, exchange, identity);
      // A bad limit's answer is the deployment's choice (§8): it says nothing of the campaign's size.
      if (limit.valid) this.sizes.add(size, limit.bound, exchange, identity);
      this.owners.add(ids, exchange, identity, slugs);
    } else if (cross.detail) {
      this.pairs.addDetail(cross.detail, exchange);
      this.owners.add([cross.detail.id], exchange, identity);
    }
  }

  /** The results, in report order, of the selected rules. */
  results(): CheckResult[] {
    const strict = this.options.strict;
    const wanted = (id: string) => !this.options.selected || this.options.selected.has(id);
    const observations = this.observations();
    const outcomes = new Map<string, Outcome>([
      ...[...this.checks].map(([id, { tally }]) => [id, outcomeOf(tally)] as const),
      ...[...this.rules].map(([id, tally]) => [id, outcomeOf(tally)] as const),
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
