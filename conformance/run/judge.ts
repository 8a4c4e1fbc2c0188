/**
 * The one judge: every rule of a run over every observation it is given, in the order given, from a
 * live run or a recording alike. It decides only what the rule declarations and the answer kinds
 * say (who judges what, and what was left unjudged and why); the verdicts are the rules' own.
 *
 * Who judges an observation:
 * - a private one (a catalogue transform, an odd spelling): only the rules that planned it;
 * - a lost one (not sent, timed out, cut): nobody; the rules that planned it are left unjudged;
 * - an answer that is not usable (5xx, not JSON): the rule about that very request when it has one
 *   (`sees: 'answers'`), else the rules about every answer (`catchAll`); an HTML page: the rules
 *   about every answer alone. The other rules that planned it are left unjudged, so one cause is
 *   one failure;
 * - a usable one: every rule.
 */
import type { Observation } from '../core/observation.ts';
import type { Across, Judgement, Rule, RuleContext } from '../core/rule.ts';
import { ruleAppliesTo } from '../core/rule.ts';
import type { Exchange } from '../core/types.ts';
import { isFinal, overCap } from '../core/types.ts';
import { DriftTally } from '../core/drift.ts';
import type { Operation } from '../../spec/contract.ts';

/** Findings a rule keeps word for word; beyond them it counts (reports say how many were left out). */
export const MAX_PROBLEMS = 500;

export interface Tally {
  rule: Rule;
  /** Observations this rule judged (one may give several records). */
  judgedObservations: number;
  /** How long the answers it judged took, together: its weight in a report's timings. */
  judgedMs: number;
  records: number;
  holds: number;
  /** Each distinct problem once, in the order found. */
  problems: string[];
  /** How many records showed each problem kept (the same undocumented field on every list answer). */
  occurrences: Map<string, number>;
  /** Problems beyond `MAX_PROBLEMS`, counted only. */
  omitted: number;
  /** The exchange of the first failure, the evidence a report shows. */
  firstFailure?: Exchange;
  firstHint?: string;
  /** The first exchange judged at all. */
  firstJudged?: Exchange;
  /** The first exchange left unjudged: what a "not judged" result shows, to reproduce it. */
  firstUnjudged?: Exchange;
  /** Why records were left unjudged, with how many each. */
  unjudged: Map<string, number>;
  /** What an advisory rule saw the deployment choose, each choice with how often. */
  choices: Map<string, number>;
  /** Decision ids the deployment decided otherwise (advisory rules). */
  differs: Set<string>;
  differsFromOwn: boolean;
  /** The OWASP categories its findings named, for a rule that places each finding. */
  owaspFailed: Set<string>;
}

export class Judge {
  /** Answers seen per documented operation and status (the report's status coverage). */
  readonly statusCounts = new Map<string, Map<string, number>>();
  /** Every difference of the answers from the spec, for the report's drift section. */
  readonly drift: DriftTally;
  /** Answers of documented operations seen (private probes and lost requests apart). */
  documentedAnswers = 0;
  private readonly operationOf = new WeakMap<Exchange, Operation>();
  private readonly tallies: Tally[];
  private readonly acrosses: { tally: Tally; across: Across }[] = [];
  private readonly byId = new Map<string, Tally>();

  private readonly ctx: RuleContext;

  constructor(rules: readonly Rule[], ctx: RuleContext) {
    this.ctx = ctx;
    this.tallies = rules.map((rule) => ({
      rule,
      judgedObservations: 0,
      judgedMs: 0,
      records: 0,
      holds: 0,
      problems: [],
      occurrences: new Map(),
      omitted: 0,
      unjudged: new Map(),
      choices: new Map(),
      differs: new Set(),
      differsFromOwn: false,
      owaspFailed: new Set(),
    }));
    this.drift = new DriftTally({
      contract: ctx.spec.contract,
      closedContract: ctx.spec.closedContract,
      operations: { operationOf: (exchange) => this.operationOf.get(exchange) },
    });
    for (const tally of this.tallies) {
      this.byId.set(tally.rule.id, tally);
      if (tally.rule.across) this.acrosses.push({ tally, across: tally.rule.across(ctx) });
    }
  }

  /** Judges one observation by every rule it concerns. */
  see(obs: Observation): void {
    if (!isFinal(obs.exchange)) {
      // Every attempt shows in the statuses seen; only final answers are judged and drift-analysed.
      if (obs.op && !obs.private && obs.exchange.response) this.countStatus(obs);
      for (const tally of this.tallies) {
        if (tally.rule.judgesEveryAttempt && obs.answer !== 'usable') this.judgeWith(tally, obs);
      }
      return;
    }
    if (obs.answer === 'lost') {
      const reason = lostReason(obs);
      for (const id of obs.plannedBy ?? []) this.mark(id, reason, obs);
      return;
    }
    const usable = obs.answer === 'usable';
    if (obs.op && !obs.private && obs.exchange.response) this.count(obs);
    let claimed = false;
    const catchAll: Tally[] = [];
    for (const tally of this.tallies) {
      const { rule } = tally;
      const planned = obs.plannedBy?.has(rule.id) ?? false;
      if (obs.private && !planned) continue;
      if (obs.op && !obs.private && !ruleAppliesTo(rule, obs.op) && !planned) continue;
      // An HTML page is the mark of something in front of the API (a gateway's or a framework's
      // error page), one cause across requests: only the rules about every answer judge it.
      const sees = rule.sees ?? 'usable';
      if (
        !usable &&
        sees !== 'every-answer' &&
        (sees !== 'answers' || (obs.answer === 'html' && !rule.catchAll))
      ) {
        if (planned) this.mark(rule.id, unusableReason(obs), obs);
        continue;
      }
      if (!usable && rule.catchAll && sees !== 'every-answer') {
        catchAll.push(tally);
        continue;
      }
      claimed = this.judgeWith(tally, obs) || claimed;
    }
    // The rules about every answer judge what no rule about this request found broken.
    for (const tally of catchAll) if (!claimed) this.judgeWith(tally, obs);
    if (!usable) return;
    for (const { tally, across } of this.acrosses) {
      if (obs.private && !obs.plannedBy?.has(tally.rule.id)) continue;
      across.see(obs);
    }
  }

  /** Every rule's tally, its cross-exchange verdicts included; call once, after the last observation. */
  finish(): Tally[] {
    for (const { tally, across } of this.acrosses) {
      const judgements = across.finish();
      // The exchanges its verdicts name (at least one): a pairing rule judges one per pair.
      const named = new Set(judgements.flatMap((j) => (j.obs ? [j.obs.exchange] : [])));
      if (judgements.length > 0) tally.judgedObservations = Math.max(tally.judgedObservations, named.size, 1);
      for (const judgement of judgements) this.record(tally, judgement, judgement.obs);
    }
    return this.tallies;
  }

  /** One rule's verdicts on one observation; true when one of them found it broken. */
  private judgeWith(tally: Tally, obs: Observation): boolean {
    const given = tally.rule.judge?.(obs, this.ctx);
    if (given === undefined) return false;
    const judgements = Array.isArray(given) ? given : [given as Judgement];
    if (judgements.length === 0) return false;
    tally.judgedObservations++;
    tally.judgedMs += obs.exchange.durationMs;
    tally.firstJudged ??= obs.exchange;
    for (const judgement of judgements) this.record(tally, judgement, obs);
    return judgements.some((j) => j.verdict === 'breaks');
  }

  /** The report's collectors: statuses per operation, and the drift of usable answers. */
  private countStatus(obs: Observation): void {
    const op = obs.op as Operation;
    const status = String(obs.exchange.response?.status);
    const seen = this.statusCounts.get(op.operationId) ?? new Map<string, number>();
    seen.set(status, (seen.get(status) ?? 0) + 1);
    this.statusCounts.set(op.operationId, seen);
  }

  private count(obs: Observation): void {
    const op = obs.op as Operation;
    this.countStatus(obs);
    if (obs.answer !== 'usable' || obs.bodyless || obs.exchange.request.method === 'HEAD') return;
    this.documentedAnswers++;
    this.operationOf.set(obs.exchange, op);
    this.drift.add(obs.exchange);
  }

  private mark(ruleId: string, reason: string, obs: Observation): void {
    const tally = this.byId.get(ruleId);
    if (!tally) return;
    tally.unjudged.set(reason, (tally.unjudged.get(reason) ?? 0) + 1);
    tally.firstUnjudged ??= obs.exchange;
  }

  private record(tally: Tally, judgement: Judgement, obs: Observation | undefined): void {
    const exchange = judgement.obs?.exchange ?? obs?.exchange;
    if (exchange) tally.firstJudged ??= exchange;
    switch (judgement.verdict) {
      case 'holds':
        tally.records++;
        tally.holds++;
        return;
      case 'breaks': {
        tally.records++;
        if (judgement.owasp) tally.owaspFailed.add(judgement.owasp);
        const seen = tally.occurrences.get(judgement.problem);
        if (seen !== undefined) tally.occurrences.set(judgement.problem, seen + 1);
        else if (tally.problems.length < MAX_PROBLEMS) {
          tally.problems.push(judgement.problem);
          tally.occurrences.set(judgement.problem, 1);
        } else tally.omitted++;
        if (!tally.firstFailure && exchange) {
          tally.firstFailure = exchange;
          if (judgement.hint) tally.firstHint = judgement.hint;
        }
        return;
      }
      case 'unjudged':
        tally.unjudged.set(judgement.reason, (tally.unjudged.get(judgement.reason) ?? 0) + 1);
        if (exchange) tally.firstUnjudged ??= exchange;
        return;
      case 'chose':
        tally.records++;
        tally.choices.set(judgement.choice, (tally.choices.get(judgement.choice) ?? 0) + 1);
        if (judgement.differs === true) tally.differsFromOwn = true;
        else if (Array.isArray(judgement.differs)) for (const id of judgement.differs) tally.differs.add(id);
        if (judgement.hint) tally.firstHint ??= judgement.hint;
        if (exchange && !tally.firstFailure) tally.firstFailure = exchange;
        return;
    }
  }
}

/** Why a lost exchange could not be judged, grouped by cause so a report counts each cause once. */
export function lostReason(obs: Observation): string {
  const failure = obs.failure ?? { kind: 'network', message: 'no answer' };
  switch (failure.kind) {
    case 'budget':
      return 'not sent: the request budget is spent (--max-requests)';
    case 'gave-up':
      return 'not sent: the target stopped answering';
    case 'timeout':
      return 'no complete answer within the timeout (--timeout)';
    case 'too-large':
      return overCap(failure)
        ? 'the answer was larger than --max-response-bytes'
        : `no answer: ${failure.message}`;
    default:
      return `no answer: ${failure.message}`;
  }
}

/** Why an answer the answer rules failed is left to them by every other rule. */
function unusableReason(obs: Observation): string {
  const status = obs.exchange.response?.status;
  switch (obs.answer) {
    case 'server-error':
      return `answered ${status ?? 'a 5xx'}, a server error (ENVELOPE-011 judges it)`;
    case 'html':
      return `answered ${status ?? ''} with an HTML page (ENVELOPE-011 judges it)`.replace('  ', ' ');
    case 'not-json':
      return `answered ${status ?? ''} with a body that is not JSON (ENVELOPE-004 judges it)`.replace(
        '  ',
        ' ',
      );
    case 'undecodable':
      return 'answered a body that does not decode from its Content-Encoding (ENVELOPE-012 judges it)';
    default:
      return 'no usable answer';
  }
}
