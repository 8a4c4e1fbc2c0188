/**
 * What a rule is: a requirement of the written spec (id, section, title, level) and a judgement
 * over exchanges, the way Schemathesis's checks take a case and its response. A rule never sends a
 * request: it may say which requests a live run needs (`plan`), and it judges every exchange it is
 * given (`judge`, one at a time, over the answers it is `about`; `across`, over the whole run, like
 * Schemathesis's `after_run` checks), whether a live run sent it or a recording supplied it. It
 * declares what it judges; the one judge (`run/judge.ts`) works out from that how to call it. The
 * engine applies every rule to every live GET operation of the spec under test unless the rule says
 * otherwise (`appliesTo`), so a new endpoint is checked by editing the spec alone.
 */
import type { Exchange, RequestSpec } from './exchange.ts';
import type { Area, Level, MockMode } from './report-model.ts';
import type { Campaign, KeyName, Via } from './roles.ts';
import type { NearMiss } from './near-miss.ts';
import type { Credential } from './credentials.ts';
import type { Evidence, Observation } from './observation.ts';
import type { OperationModel, SpecModel } from './spec-model.ts';
import type { OwaspCategory } from './owasp.ts';
import type { RuleState } from './state.ts';

export interface RuleDeclaration {
  /** Stable requirement id, e.g. `AUTH-003`. */
  id: string;
  /** The section of the written spec the rule comes from, e.g. `§5.8`. */
  section: string;
  /** What holds, in words a tester understands. */
  title: string;
  area: Area;
  /** `required` when the written spec states the rule; `advisory` when it says "not shown". */
  level: Level;
  /** Drift (undocumented fields, statuses, content types): advisory, a failure under `--strict`. */
  drift?: true;
  /** The decision of spec/DECISIONS.md an advisory rule reports on. */
  decision?: string;
  /** How to fix a failure, in one sentence. */
  hint: string;
  /** The OWASP API Security Top 10 (2023) categories a broken rule falls under. */
  owasp?: readonly OwaspCategory[];
  /** Keys it needs: without them it is skipped, naming the variables. */
  needs?: readonly KeyName[];
  /** Only when the deployment's web base URL is configured. */
  needsWebBaseUrl?: true;
  /** Only on a direct connection to the target: through a proxy it is skipped, for this reason. */
  direct?: string;
  /** How `--profile mock` treats it: run, or skipped with the reason a mock cannot show it. */
  mock: MockMode;
  /**
   * Request headers it reads beyond the key headers, Accept, Accept-Encoding, Content-Type, Origin
   * and If-None-Match (lower case): a recording's reader keeps them for it, and shows no other.
   */
  requestHeaders?: readonly string[];
}

/**
 * One verdict on one record (an answer, a walk, a pair of answers), with the exchange that shows it:
 * the observation judged, or evidence a cross-exchange rule kept (`evidence.ts`).
 */
export type Judgement =
  | { verdict: 'holds'; obs?: Evidence }
  /** `owasp`: the category this finding falls under, for a rule whose findings fall under several. */
  | { verdict: 'breaks'; problem: string; obs?: Evidence; hint?: string; owasp?: OwaspCategory }
  | { verdict: 'unjudged'; reason: string; obs?: Evidence }
  /** Advisory rules: what the deployment chose, and whether it differs from the project's decision. */
  | { verdict: 'chose'; choice: string; differs?: boolean | string[]; obs?: Evidence; hint?: string };

export const holds = (obs?: Evidence): Judgement => (obs ? { verdict: 'holds', obs } : { verdict: 'holds' });
export const breaks = (problem: string, obs?: Evidence, hint?: string, owasp?: OwaspCategory): Judgement => ({
  verdict: 'breaks',
  problem,
  ...(obs ? { obs } : {}),
  ...(hint ? { hint } : {}),
  ...(owasp ? { owasp } : {}),
});
export const unjudged = (reason: string, obs?: Evidence): Judgement => ({
  verdict: 'unjudged',
  reason,
  ...(obs ? { obs } : {}),
});
export const chose = (choice: string, differs: boolean | string[], obs?: Evidence): Judgement => ({
  verdict: 'chose',
  choice,
  differs,
  ...(obs ? { obs } : {}),
});

/** What a rule may read while it judges; never a key's value. */
export interface RuleContext {
  readonly spec: SpecModel;
  readonly strict: boolean;
  /** The deployment's `{web_base_url}`, when the tester configured it. */
  readonly webBaseUrl?: string;
  /** The configured keys (names only). */
  readonly keys: ReadonlySet<KeyName>;
  /** Whether a text repeats a key these credentials carried, whole or in part; never a value. */
  readonly echoed: (credential: Credential, text: string) => boolean;
  readonly source: 'live' | 'traffic';
  /** Where `across` judges keep their per-item state, within the run's memory budget (`state.ts`). */
  readonly state: RuleState;
}

/** What a cross-exchange judge is made with: the run's context, and the id of the rule it judges for. */
export interface AcrossContext extends RuleContext {
  /** Names the tables of a judge that several rules make alike (`keylessAcross`). */
  readonly ruleId: string;
}

/**
 * A judge over many exchanges: it sees every observation, then gives its verdicts. It keeps its
 * state in the tables of `RuleContext.state` alone, made when it is made, so that the state of a
 * recording's shards, joined, gives the verdicts of the whole recording.
 */
export interface Across {
  see(obs: Observation): void;
  finish(): Iterable<Judgement>;
}

/**
 * A rule's judge over the whole run, as Schemathesis's `after_run` checks stand apart from its
 * checks of one response: what it judges over all of a run's exchanges, and what it needs to see.
 */
interface AcrossRun {
  /** Makes the judge, afresh for each run (each shard of a recording). */
  judge(ctx: AcrossContext): Across;
  /**
   * It also sees the requests that got no whole answer (a cut, a reset, a target gone): the
   * transport's faults, which every other rule leaves unjudged. Every other judge over the run sees
   * the usable answers alone (a private probe's only when its rule asked for it).
   */
  seesLost?: true;
}

/**
 * Which answers a rule's judge of one exchange (`judge`) is about. Every rule judges usable
 * answers; the kinds that are not usable (a 5xx, a body that is not JSON or does not decode, an
 * HTML page, an answer still throttled after the retries, an attempt tried again) each have one
 * cause, so each is failed once, by the rule about that very answer:
 * - `usable answers` (the default): none other; a rule that asked for an unusable answer is told
 *   why it was left unjudged.
 * - `answers to its requests`: also the 5xx, non-JSON and undecodable answers to the requests it is
 *   about (an HTML page is left to the rules about every answer). The rules that asked for an answer
 *   judge it first: once one found it broken, the others leave it unjudged.
 * - `every answer`: a rule about every answer (JSON everywhere): also every unusable answer, HTML
 *   pages included, that no rule about that very request found broken. A throttled answer is the
 *   target's pace, never its fault: it judges none.
 * - `every attempt`: as `every answer`, and also the attempts that were tried again (a 429 or a
 *   503 the client retried) and a private probe's server error: a fault a client met is a fault
 *   even if a retry would have succeeded (no 5xx anywhere).
 * - `every answer, whatever else failed`: every final answer whatever its kind, throttled ones
 *   included, whoever else found it broken: what it finds (a leaked key, a stack trace) is a
 *   fault of its own in any answer.
 * No rule judges a lost request (not sent, timed out, cut) one at a time: see `AcrossRun.seesLost`.
 */
type About =
  | 'usable answers'
  | 'answers to its requests'
  | 'every answer'
  | 'every attempt'
  | 'every answer, whatever else failed';

/** One request a rule needs from a live run. */
export interface Probe {
  request: RequestSpec;
  /**
   * When it is sent: 0 with the discovery, 1 (default) with every rule's requests, 2 after them
   * (other keys' requests, after the owner's, so a cache keyed by URL alone shows), 3 after every
   * other request (reads made again, to see that nothing was cached from one key into another's).
   */
  phase?: 0 | 1 | 2 | 3;
  /** Judged by the rules that planned it alone (odd spellings, catalogue transforms). */
  private?: true;
  /** The catalogue transform that made it. */
  transform?: string;
  /**
   * Requests made from this one's answer: one is sent in the phase after it (revalidation with the
   * ETag the answer gave); several are asked together, after every other request, with nothing
   * sent between them (two requests asked again when their answers differ). Undefined when the
   * answer gives nothing to ask with. Planned by the same rule.
   */
  followUp?: (answered: Exchange) => RequestSpec | readonly RequestSpec[] | undefined;
  /**
   * The follow-up is made again from its own request's answer, and so on until it gives nothing or
   * asks a request already sent (a walk through the pages of a collection).
   */
  repeats?: true;
}

/** An item a collection listed to one campaign's key: its id and the summary as served. */
export interface ListedItem {
  id: string;
  summary: Record<string, unknown>;
}

/** How a rule asks for one request on an operation; the world fills in the path and the target's manners. */
export interface Ask {
  /** The configured key to send; none when absent (see `madeUp`, `headers`). */
  key?: KeyName;
  via?: Via;
  /** Sends an edit of the key instead (`near-miss.ts`). */
  nearMiss?: NearMiss;
  /** Sends a well-formed key no deployment knows, in this header. */
  madeUp?: Via;
  /** Sends the key after this word instead of its header's own (`Token`; `''` for the bare key). */
  scheme?: string;
  /** Sends the key without this leading text (the spec's key prefix). */
  dropPrefix?: string;
  /** The item of an item operation (a real one by default). */
  id?: string;
  query?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** A path of its own below the base URL, instead of the operation's. */
  path?: string;
}

/** What the live planner knows when rules plan: the spec, the keys, and what the collections listed. */
export interface World {
  readonly spec: SpecModel;
  readonly seed: number;
  readonly profile: 'live' | 'mock';
  /** `full` (`--depth full`): the whole attacker's catalogue on every refusal and target. */
  readonly depth: 'default' | 'full';
  /** `--allow-destructive`: a DELETE may go to an item that exists. */
  readonly allowDestructive?: boolean;
  /** Whether the run has this key. */
  has(key: KeyName): boolean;
  /**
   * The request for `ask` on an operation, or undefined when this target cannot be asked so (a key
   * not configured; a mock that cannot serve that item).
   */
  request(op: OperationModel, ask: Ask): RequestSpec | undefined;
  /** The items a collection operation listed to a campaign's key (its largest page), as discovered. */
  listed(op: OperationModel, campaign: Campaign): readonly ListedItem[];
  /** The ids the sweeps judge for an item or collection operation (every listed one, or `--sample N`). */
  sweep(op: OperationModel, campaign: 'primary' | 'other'): readonly string[];
  /** A few ids that exist, for refusals tried on real data (an unknown id when none is listed). */
  realIds(op: OperationModel): readonly string[];
  /** An id no deployment has, told apart in any exchange by `isUnknownId` (`ids.ts`). */
  readonly unknownId: string;
}

export interface Rule extends RuleDeclaration {
  /** What holds, as reports state it under "expected". */
  expected: string;
  /** What one judged record is, plural: `answers` (the default), `walks`, `limit values`. */
  unit?: string;
  /**
   * Its records are the items the sweeps fetch: under `--sample N`, its coverage says how many it
   * judged of how many were listed.
   */
  sweeps?: true;
  /** Which answers its `judge` is about (`About`); usable answers alone when absent. */
  about?: About;
  /** The operations it applies to; every live GET operation when absent. */
  appliesTo?(op: OperationModel): boolean;
  /** The requests a live run needs for this rule on one operation. */
  plan?(op: OperationModel, world: World): Probe[];
  /** The requests it needs once per run, not per operation (an unknown path, the planned paths). */
  planOnce?(world: World): Probe[];
  /** One exchange's verdict; undefined when the exchange is none of this rule's concern. */
  judge?(obs: Observation, ctx: RuleContext): Judgement | readonly Judgement[] | undefined;
  /** Its judge over the whole run (`AcrossRun`), apart from its judge of one exchange. */
  across?: AcrossRun;
}

/** Whether a rule applies to an operation: its own test, or every live GET by default. */
export function ruleAppliesTo(rule: Rule, op: OperationModel): boolean {
  if (rule.appliesTo) return rule.appliesTo(op);
  return op.live && op.method === 'GET';
}
