/**
 * What one rule's verdicts add up to over a run: how many records held and broke, every distinct
 * finding with how often it was seen, why records were left unjudged, what an advisory rule saw
 * chosen, and the exchanges a report shows. Findings are kept in two tables of the run's state (by
 * text, and in the order found), so a recording with a million distinct findings keeps them within
 * the memory budget and its JSON report holds every one.
 *
 * A tally is mergeable: a recording judged in shards gives one tally per shard, and `absorb` joins
 * them into the tally the whole recording gives. "First" means the earliest entry of the recording,
 * whatever order the records came in; findings keep the order the whole recording would find them
 * in: those of single exchanges by entry, then those of the cross-exchange judges as they give them.
 */
import type { Evidence } from '../core/observation.ts';
import type { Judgement, Rule } from '../core/rule.ts';
import type { RuleState, StateTable } from '../core/state.ts';
import { shownExchange } from '../core/evidence.ts';
import type { Exchange } from '../core/exchange.ts';

/** A finding as reports list it: its text and how many records showed it. */
export interface Finding {
  problem: string;
  n: number;
}

/** How often something was seen, and the place (`orderOf`) it was first seen at. */
interface Counted {
  n: number;
  at: string;
}

/** The earliest exchange of a kind, and the hint that came with it. */
interface First {
  exchange: Exchange;
  hint?: string;
}

/** A tally as a shard's result carries it; its findings travel with the rest of the state. */
export interface TallyDump {
  id: string;
  judgedObservations: number;
  judgedMs: number;
  records: number;
  holds: number;
  counter: number;
  firstFailure?: First;
  firstHint?: { seq: number; hint: string };
  firstJudged?: Exchange;
  firstUnjudged?: Exchange;
  unjudged: [string, Counted][];
  choices: [string, Counted][];
  differs: string[];
  differsFromOwn: boolean;
  owaspFailed: string[];
  ownFindings?: boolean;
}

const SEQ_DIGITS = 16;
const COUNT_DIGITS = 12;
const pad = (n: number, digits: number) => String(n).padStart(digits, '0');

const joinCounted = (kept: Counted, other: Counted): Counted => ({
  n: kept.n + other.n,
  at: other.at < kept.at ? other.at : kept.at,
});
const keepFirst = (kept: string) => kept;
const earlierExchange = (kept: Exchange | undefined, other: Exchange | undefined) =>
  other && (!kept || other.seq < kept.seq) ? other : kept;

export class Tally {
  /** Observations this rule judged (one may give several records). */
  judgedObservations = 0;
  /** How long the answers it judged took, together: its weight in a report's timings. */
  judgedMs = 0;
  records = 0;
  holds = 0;
  /** The exchange of the first failure (or advisory choice): the evidence a report shows. */
  firstFailure: Exchange | undefined;
  /** The hint of the first verdict that gave one. */
  private hint: { seq: number; hint: string } | undefined;
  /** The first exchange judged at all. */
  firstJudged: Exchange | undefined;
  /** The first exchange left unjudged: what a "not judged" result shows, to reproduce it. */
  firstUnjudged: Exchange | undefined;
  /** Why records were left unjudged, with how many each. */
  private readonly reasons = new Map<string, Counted>();
  /** What an advisory rule saw the deployment choose, each choice with how often. */
  private readonly chosen = new Map<string, Counted>();
  /** Decision ids the deployment decided otherwise (advisory rules). */
  readonly differs = new Set<string>();
  differsFromOwn = false;
  /** The OWASP categories its findings named, for a rule that places each finding. */
  readonly owaspFailed = new Set<string>();
  /**
   * Whether a finding stood on the rule's own evidence: anything but a server error, which says only
   * that the server failed (the security view places no failure under a category for it).
   */
  ownFindings = false;
  /** Each distinct finding, with how many records showed it and where it was first found. */
  private readonly found: StateTable<Counted>;
  /** The findings in the order found (`orderOf`), to list them so. */
  private readonly order: StateTable<string>;
  /** Records counted in the order found: which of two findings of one exchange came first. */
  private counter = 0;
  /** Set once the cross-exchange judges give their verdicts: their findings come after all others. */
  private finishing = false;

  readonly rule: Rule;

  constructor(rule: Rule, state: RuleState) {
    this.rule = rule;
    this.found = state.table<Counted>(`findings ${rule.id}`, joinCounted);
    this.order = state.table<string>(`finding order ${rule.id}`, keepFirst);
  }

  /** From here on, the verdicts are the cross-exchange judges': they come after every exchange's. */
  finish(): void {
    this.finishing = true;
  }

  /**
   * One verdict; `evidence` the exchange it is about when the verdict names none; `serverError` when
   * the answer judged was a 5xx.
   */
  record(judgement: Judgement, evidence: Evidence | undefined, serverError = false): void {
    const exchange = judgement.obs?.exchange ?? evidence?.exchange;
    this.firstJudged = this.first(this.firstJudged, exchange);
    switch (judgement.verdict) {
      case 'holds':
        this.records++;
        this.holds++;
        return;
      case 'breaks':
        this.records++;
        if (judgement.owasp) this.owaspFailed.add(judgement.owasp);
        if (!serverError) this.ownFindings = true;
        this.find(judgement.problem, exchange);
        this.failedAt(exchange, judgement.hint);
        return;
      case 'unjudged':
        this.leftUnjudged(judgement.reason, exchange);
        return;
      case 'chose':
        this.records++;
        count(this.chosen, judgement.choice, () => this.orderOf(exchange));
        if (judgement.differs === true) this.differsFromOwn = true;
        else if (Array.isArray(judgement.differs)) for (const id of judgement.differs) this.differs.add(id);
        this.failedAt(exchange, judgement.hint);
        return;
    }
  }

  /** A record left unjudged: no answer, or an answer the rule could not read. */
  leftUnjudged(reason: string, exchange: Exchange | undefined): void {
    count(this.reasons, reason, () => this.orderOf(exchange));
    this.firstUnjudged = this.first(this.firstUnjudged, exchange);
  }

  /** The reasons records were left unjudged, each with how many, in the order first seen. */
  get unjudged(): Map<string, number> {
    return inOrder(this.reasons);
  }

  /** The choices an advisory rule saw, each with how often, in the order first seen. */
  get choices(): Map<string, number> {
    return inOrder(this.chosen);
  }

  get firstHint(): string | undefined {
    return this.hint?.hint;
  }

  /** How many distinct findings there are. */
  get distinctFindings(): number {
    return this.found.size;
  }

  /** Every finding, in the order found. */
  *findings(): Generator<Finding> {
    for (const [at, problem] of this.order.entries()) {
      const counted = this.found.get(problem);
      // A finding two shards both found is listed where it was found first.
      if (counted?.at === at) yield { problem, n: counted.n };
    }
  }

  /** The tally as a shard's result carries it (its findings go with the state). */
  dump(): TallyDump {
    const dump: TallyDump = {
      id: this.rule.id,
      judgedObservations: this.judgedObservations,
      judgedMs: this.judgedMs,
      records: this.records,
      holds: this.holds,
      counter: this.counter,
      unjudged: [...this.reasons],
      choices: [...this.chosen],
      differs: [...this.differs],
      differsFromOwn: this.differsFromOwn,
      owaspFailed: [...this.owaspFailed],
      ownFindings: this.ownFindings,
    };
    if (this.firstFailure) dump.firstFailure = { exchange: shownExchange(this.firstFailure) };
    if (this.hint) dump.firstHint = this.hint;
    if (this.firstJudged) dump.firstJudged = shownExchange(this.firstJudged);
    if (this.firstUnjudged) dump.firstUnjudged = shownExchange(this.firstUnjudged);
    return dump;
  }

  /** Joins another shard's tally of the same rule into this one. */
  absorb(dump: TallyDump): void {
    this.judgedObservations += dump.judgedObservations;
    this.judgedMs += dump.judgedMs;
    this.records += dump.records;
    this.holds += dump.holds;
    this.counter = Math.max(this.counter, dump.counter);
    this.firstFailure = earlierExchange(this.firstFailure, dump.firstFailure?.exchange);
    if (dump.firstHint && (!this.hint || dump.firstHint.seq < this.hint.seq)) this.hint = dump.firstHint;
    this.firstJudged = earlierExchange(this.firstJudged, dump.firstJudged);
    this.firstUnjudged = earlierExchange(this.firstUnjudged, dump.firstUnjudged);
    for (const [reason, counted] of dump.unjudged) join(this.reasons, reason, counted);
    for (const [choice, counted] of dump.choices) join(this.chosen, choice, counted);
    for (const id of dump.differs) this.differs.add(id);
    this.differsFromOwn ||= dump.differsFromOwn;
    for (const category of dump.owaspFailed) this.owaspFailed.add(category);
    this.ownFindings ||= dump.ownFindings !== false;
  }

  private find(problem: string, exchange: Exchange | undefined): void {
    const known = this.found.get(problem);
    if (known) {
      known.n++;
      this.found.set(problem, known);
      return;
    }
    const at = this.orderOf(exchange);
    this.found.set(problem, { n: 1, at });
    this.order.set(at, problem);
  }

  private failedAt(exchange: Exchange | undefined, hint: string | undefined): void {
    this.firstFailure = this.first(this.firstFailure, exchange);
    if (!hint) return;
    const seq = this.finishing ? Number.POSITIVE_INFINITY : (exchange?.seq ?? Number.POSITIVE_INFINITY);
    if (!this.hint || seq < this.hint.seq) this.hint = { seq, hint };
  }

  /**
   * The earlier of a kept exchange and a new one: while exchanges are judged, the one of the earlier
   * entry; once the cross-exchange judges give their verdicts, only where none was kept.
   */
  private first(kept: Exchange | undefined, exchange: Exchange | undefined): Exchange | undefined {
    if (!exchange) return kept;
    if (this.finishing) return kept ?? exchange;
    return earlierExchange(kept, exchange);
  }

  /**
   * Where a record stands in the order found: a single exchange's by its entry and then the order
   * its records came in; the cross-exchange judges' after every exchange's, in the order given.
   */
  private orderOf(exchange: Exchange | undefined): string {
    const n = pad(this.counter++, COUNT_DIGITS);
    if (this.finishing || !exchange) return `x${n}`;
    return `j${pad(exchange.seq, SEQ_DIGITS)}${n}`;
  }
}

function count(map: Map<string, Counted>, key: string, at: () => string): void {
  const known = map.get(key);
  if (known) known.n++;
  else map.set(key, { n: 1, at: at() });
}

function join(map: Map<string, Counted>, key: string, counted: Counted): void {
  const known = map.get(key);
  map.set(key, known ? joinCounted(known, counted) : counted);
}

/** Counts by key, in the order each key was first seen. */
function inOrder(map: Map<string, Counted>): Map<string, number> {
  return new Map(
    [...map].sort(([, a], [, b]) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0)).map(([key, { n }]) => [key, n]),
  );
}
