/**
 * The one judge: every rule of a run over every observation it is given, in the order given, from a
 * live run or a recording alike. It decides only what the rule declarations and the answer kinds
 * say (who judges what, and what was left unjudged and why); the verdicts are the rules' own.
 *
 * Who judges an observation:
 * - a private one (a catalogue transform, an odd spelling): only the rules that planned it;
 * - a lost one (not sent, timed out, cut): the judges over the run that see lost requests
 *   (`across.seesLost`: the transport's, about cut answers); the rules that planned it are left
 *   unjudged;
 * - a throttled one (a 429, or a 503 with `Retry-After`, still so after the client's retries): the
 *   target's pace, never its fault: only the rules `about: 'every answer, whatever else failed'`
 *   judge it, and the rules that planned it are left unjudged;
 * - an attempt tried again: the rules `about: 'every attempt'`, when it was neither usable nor
 *   throttled;
 * - an answer that is not usable (5xx, not JSON): the rule about that very request when it has one
 *   (`about: 'answers to its requests'`), else the rules `about: 'every answer'` (or `'every
 *   attempt'`); an HTML page: the rules about every answer alone. Once one rule found it broken (the
 *   rules that asked for it judge first), the other rules that planned it are left unjudged, so one
 *   cause is one failure, and a rule failed by server errors alone fails no security category; the
 *   rules `about: 'every answer, whatever else failed'` judge it whatever the others found;
 * - a usable one: every rule.
 *
 * What each `about` means is written once, in `core/rule.ts`.
 */
import type { Observation } from '../core/observation.ts';
import type { Across, Judgement, Rule, RuleContext } from '../core/rule.ts';
import { ruleAppliesTo } from '../core/rule.ts';
import type { OperationModel } from '../core/spec-model.ts';
import { isFinal, overCap } from '../core/exchange.ts';
import { DriftTally, type DriftDump } from '../core/drift-analysis.ts';
import { DRIFT_RULE_IDS } from '../rules/drift.ts';
import type { Operation } from '../../spec/contract.ts';
import { Tally, type TallyDump } from './tally.ts';

/** The judge's counts as a shard's result carries them; the rules' state goes with the state. */
export interface JudgeDump {
  tallies: TallyDump[];
  statusCounts: [string, [string, number][]][];
  documentedAnswers: number;
  drift: DriftDump;
}

/** A recording's judge yields this often while the cross-exchange judges give their verdicts. */
const RELIEVE_EVERY = 10_000;

export class Judge {
  /** Answers seen per documented operation and status (the report's status coverage). */
  readonly statusCounts = new Map<string, Map<string, number>>();
  /** Every difference of the answers from the spec, for the report's drift section. */
  readonly drift: DriftTally;
  /** Answers of documented operations seen (private probes and lost requests apart). */
  documentedAnswers = 0;
  private readonly operationOf = new WeakMap<object, Operation>();
  private readonly tallies: Tally[];
  private readonly acrosses: { tally: Tally; across: Across }[] = [];
  private readonly byId = new Map<string, Tally>();
  /** The tallies of the rules that apply to an operation's exchanges, by operation (`undefined`: none matched). */
  private readonly applying = new Map<OperationModel | undefined, Tally[]>();
  /** Of those, the rules that judge single exchanges (`judge`): all an unplanned observation needs. */
  private readonly judging = new Map<OperationModel | undefined, Tally[]>();

  private readonly ctx: RuleContext;

  constructor(rules: readonly Rule[], ctx: RuleContext) {
    this.ctx = ctx;
    this.tallies = rules.map((rule) => new Tally(rule, ctx.state));
    this.drift = new DriftTally(
      {
        contract: ctx.spec.contract,
        closedContract: ctx.spec.closedContract,
        operations: { operationOf: (exchange) => this.operationOf.get(exchange) },
      },
      DRIFT_RULE_IDS,
    );
    for (const tally of this.tallies) {
      this.byId.set(tally.rule.id, tally);
      if (tally.rule.across)
        this.acrosses.push({ tally, across: tally.rule.across.judge({ ...ctx, ruleId: tally.rule.id }) });
    }
  }

  /** Judges one observation by every rule it concerns. */
  see(obs: Observation): void {
    if (!isFinal(obs.exchange)) {
      // Every attempt shows in the statuses seen; only final answers are judged and drift-analysed.
      if (obs.op && !obs.private && obs.exchange.response) this.countStatus(obs);
      for (const tally of this.tallies) {
        const unusable = obs.answer !== 'usable' && obs.answer !== 'throttled';
        if (tally.rule.about === 'every attempt' && unusable) this.judgeWith(tally, obs);
      }
      return;
    }
    if (obs.answer === 'lost') {
      const reason = lostReason(obs);
      for (const id of obs.plannedBy ?? []) this.mark(id, reason, obs);
      for (const { tally, across } of this.acrosses) if (tally.rule.across?.seesLost) across.see(obs);
      return;
    }
    if (obs.answer === 'throttled') {
      if (obs.op && !obs.private) this.countStatus(obs);
      for (const tally of this.candidates(obs)) {
        if (tally.rule.about === 'every answer, whatever else failed') this.judgeWith(tally, obs);
        else if (obs.plannedBy?.has(tally.rule.id)) this.mark(tally.rule.id, THROTTLED_REASON, obs);
      }
      return;
    }
    const usable = obs.answer === 'usable';
    if (obs.op && !obs.private && obs.exchange.response) this.count(obs);
    let claimed = false;
    const aboutEveryAnswer: Tally[] = [];
    for (const tally of usable ? this.candidates(obs) : plannersFirst(this.candidates(obs), obs)) {
      const { rule } = tally;
      const planned = obs.plannedBy?.has(rule.id) ?? false;
      const about = rule.about ?? 'usable answers';
      // One cause, one failure: once a rule about this request found the unusable answer broken,
      // every other rule that asked for it leaves it unjudged. An HTML page is the mark of something
      // in front of the API (a gateway's or a framework's error page), one cause across requests:
      // only the rules about every answer judge it.
      if (
        !usable &&
        (about === 'usable answers' ||
          (about === 'answers to its requests' && (claimed || obs.answer === 'html')))
      ) {
        if (planned) this.mark(rule.id, unusableReason(obs), obs);
        continue;
      }
      if (!usable && (about === 'every answer' || about === 'every attempt')) {
        aboutEveryAnswer.push(tally);
        continue;
      }
      claimed = this.judgeWith(tally, obs) || claimed;
    }
    // The rules about every answer judge what no rule about this request found broken.
    for (const tally of aboutEveryAnswer) if (!claimed) this.judgeWith(tally, obs);
    if (!usable) return;
    for (const { tally, across } of this.acrosses) {
      if (obs.private && !obs.plannedBy?.has(tally.rule.id)) continue;
      across.see(obs);
    }
  }

  /**
   * The rules that may judge an observation: a private one's planners; else every rule that applies
   * to its operation (any rule when it matched none: the rule checks `obs.op` itself) and every
   * rule that planned it. The rules of an operation are worked out once.
   */
  private candidates(obs: Observation): readonly Tally[] {
    const { plannedBy } = obs;
    // A private probe is judged by the rules that asked for it; a server error to it is a fault
    // whatever it asked (501 Not Implemented aside: a fitting refusal of what is not served), which
    // the rule about every request's server errors judges when the asking rules found nothing
    // broken (one cause, one failure).
    if (obs.private) {
      const broke = obs.answer === 'server-error' && obs.exchange.response?.status !== NOT_IMPLEMENTED;
      return this.tallies.filter(
        (t) => plannedBy?.has(t.rule.id) || (broke && t.rule.about === 'every attempt'),
      );
    }
    let applying = this.applying.get(obs.op);
    if (!applying) {
      const op = obs.op;
      applying = op ? this.tallies.filter((t) => ruleAppliesTo(t.rule, op)) : this.tallies;
      this.applying.set(op, applying);
      // A rule without `judge` gives no verdict on one exchange: only a rule that planned the
      // request must see it, to be told why it was left unjudged.
      this.judging.set(
        op,
        applying.filter((t) => t.rule.judge),
      );
    }
    if (!plannedBy || plannedBy.size === 0) return this.judging.get(obs.op) as Tally[];
    if (applying === this.tallies) return applying;
    const others = this.tallies.filter((t) => plannedBy.has(t.rule.id) && !applying.includes(t));
    return others.length === 0
      ? applying
      : this.tallies.filter((t) => applying.includes(t) || others.includes(t));
  }

  /**
   * Every rule's tally, its cross-exchange verdicts included; call once, after the last observation.
   * `relieve` is called now and then while the verdicts are given (a recording's state spills then).
   */
  async finish(relieve?: () => Promise<void>): Promise<Tally[]> {
    let given = 0;
    for (const { tally, across } of this.acrosses) {
      tally.finish();
      // The exchanges its verdicts name (at least one): a pairing rule judges one per pair.
      const named = new Set<number>();
      let any = false;
      for (const judgement of across.finish()) {
        any = true;
        if (judgement.obs) named.add(judgement.obs.exchange.seq);
        tally.record(judgement, judgement.obs);
        if (relieve && ++given % RELIEVE_EVERY === 0) await relieve();
      }
      if (any) tally.judgedObservations = Math.max(tally.judgedObservations, named.size, 1);
    }
    for (const tally of this.tallies) tally.finish();
    return this.tallies;
  }

  /** The judge's counts as a shard's result carries them. */
  dump(): JudgeDump {
    return {
      tallies: this.tallies.map((t) => t.dump()),
      statusCounts: [...this.statusCounts].map(([op, seen]) => [op, [...seen]]),
      documentedAnswers: this.documentedAnswers,
      drift: this.drift.dump(),
    };
  }

  /** Joins another shard's counts into this judge's (the rules' state is joined apart). */
  absorb(dump: JudgeDump): void {
    for (const tally of dump.tallies) this.byId.get(tally.id)?.absorb(tally);
    for (const [op, seen] of dump.statusCounts) {
      const counts = this.statusCounts.get(op) ?? new Map<string, number>();
      for (const [status, n] of seen) counts.set(status, (counts.get(status) ?? 0) + n);
      this.statusCounts.set(op, counts);
    }
    this.documentedAnswers += dump.documentedAnswers;
    this.drift.absorb(dump.drift);
  }

  /** One rule's verdicts on one observation; true when one of them found it broken. */
  private judgeWith(tally: Tally, obs: Observation): boolean {
    const given = tally.rule.judge?.(obs, this.ctx);
    if (given === undefined) return false;
    const serverError = obs.answer === 'server-error';
    if (!Array.isArray(given)) {
      tally.judgedObservations++;
      tally.judgedMs += obs.exchange.durationMs;
      tally.record(given as Judgement, obs, serverError);
      return (given as Judgement).verdict === 'breaks';
    }
    if (given.length === 0) return false;
    tally.judgedObservations++;
    tally.judgedMs += obs.exchange.durationMs;
    for (const judgement of given) tally.record(judgement, obs, serverError);
    return given.some((j) => j.verdict === 'breaks');
  }

  /** The report's collectors: statuses per operation, and the drift of usable answers. */
  private countStatus(obs: Observation): void {
    const op = obs.op as Operation;
    const status = String(obs.exchange.response?.status);
    let seen = this.statusCounts.get(op.operationId);
    if (!seen) {
      seen = new Map<string, number>();
      this.statusCounts.set(op.operationId, seen);
    }
    seen.set(status, (seen.get(status) ?? 0) + 1);
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
    this.byId.get(ruleId)?.leftUnjudged(reason, obs.exchange);
  }
}

/** Why a throttled exchange was left unjudged by the rules that asked for it (`report.ts` gives the pace to set). */
const THROTTLED_REASON = "still throttled after the retries (the target's pace, not its fault)";

/** HTTP's Not Implemented. */
const NOT_IMPLEMENTED = 501;

/** The rules that asked for an exchange before the others that may judge it: the one that asked judges first. */
function plannersFirst(tallies: readonly Tally[], obs: Observation): readonly Tally[] {
  const plannedBy = obs.plannedBy;
  if (!plannedBy || plannedBy.size === 0) return tallies;
  return [
    ...tallies.filter((t) => plannedBy.has(t.rule.id)),
    ...tallies.filter((t) => !plannedBy.has(t.rule.id)),
  ];
}

/** Why a lost exchange could not be judged, grouped by cause so a report counts each cause once. */
function lostReason(obs: Observation): string {
  const failure = obs.failure ?? { kind: 'network', message: 'no answer' };
  switch (failure.kind) {
    case 'budget':
      return 'not sent: the request budget is spent (--max-requests)';
    case 'gave-up':
      return 'not sent: the target stopped answering';
    case 'past-deadline':
      return 'not sent or not answered: the run reached --max-duration';
    case 'timeout':
      return 'no complete answer within the timeout (--timeout)';
    case 'cut':
      return 'no whole answer: it arrived cut (see ENVELOPE-016)';
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
