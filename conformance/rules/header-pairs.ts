/**
 * The same request with the same credentials in each key header, paired, and the two answers
 * compared (§5.2: the key is sent in either header, alike). A second, weaker auth path behind one
 * header shows as a pair that differs. Only answers within about a minute of each other are
 * compared: over a long recording, data and keys change. Per pair the rule keeps a few outcomes
 * (status, code, a digest), never a body; which pair differs does not depend on the order the
 * exchanges came in.
 */
import type { Credential } from '../core/credentials.ts';
import { nearMissLabel } from '../core/near-miss.ts';
import { EvidenceTable } from '../core/evidence.ts';
import type { Evidence, Observation } from '../core/observation.ts';
import type { Via } from '../core/roles.ts';
import type { Across, Judgement } from '../core/rule.ts';
import { breaks, chose, holds } from '../core/rule.ts';
import { requestLine } from '../core/answers.ts';
import type { RuleState } from '../core/state.ts';
import type { Pinned } from './pinned.ts';

/** What one answer of a pair is compared on; `label` is how a report shows it. */
export interface PairOutcome {
  status: number;
  /** The error code; undefined when the answer has none or was recorded without its body. */
  code?: string;
  /** A digest of what it served; undefined when it served nothing or was recorded without its body. */
  digest?: string;
  /** What the spec pins of what it served (`pinned.ts`), when the rule compares by it. */
  pinned?: Pinned;
  label: string;
}

export interface PairRule {
  /** The answer of a paired request as compared, or undefined when this answer is not compared. */
  outcomeOf(obs: Observation): PairOutcome | undefined;
  /** Why two answers differ, or undefined when they are alike. */
  difference(bearer: PairOutcome, xApiKey: PairOutcome): string | undefined;
}

/** Request headers that change an answer: two requests pair only when these agree. */
const ANSWER_HEADERS = ['accept', 'if-none-match', 'if-modified-since', 'prefer', 'range'];
/** Answers closer in time than this see the same data and the same keys. */
const SAME_TIME_MS = 60_000;
/** Pairs whose first exchange a recording's rule keeps as evidence (the earliest pairs'). */
const MAX_EVIDENCE = 500;

type Side = Map<number, Map<string, PairOutcome>>;

/**
 * One pair's record in the run's state: the request as named by its earliest exchange, and the
 * outcomes of each side by minute.
 */
interface Pair {
  line: string;
  seq: number;
  sides: Record<Via, Side>;
}

/** Two records of one pair joined: the earlier line, every outcome of either side. */
function joinPairs(kept: Pair, other: Pair): Pair {
  for (const via of ['bearer', 'x-api-key'] as const) {
    for (const [bucket, outcomes] of other.sides[via]) {
      const mine = kept.sides[via].get(bucket) ?? new Map<string, PairOutcome>();
      for (const [key, outcome] of outcomes) if (!mine.has(key)) mine.set(key, outcome);
      kept.sides[via].set(bucket, mine);
    }
  }
  return other.seq < kept.seq ? { ...kept, line: other.line, seq: other.seq } : kept;
}

/** The credentials without the header they came in, for a credential that names one key. */
function sameKeyIdentity(credential: Credential): { id: string; label: string; via: Via } | undefined {
  switch (credential.kind) {
    case 'key':
      return { id: `$${credential.key}`, label: `$${credential.key}`, via: credential.via };
    case 'near-miss': {
      const label = nearMissLabel(credential.key, credential.miss);
      return { id: label, label, via: credential.via };
    }
    case 'made-up':
      return { id: 'made-up', label: 'an unknown key', via: credential.via };
    case 'recorded':
      return { id: credential.id, label: credential.id, via: credential.via };
    default:
      return undefined;
  }
}

/** The pair of each observation, worked out once for the rules that pair requests (AUTH-002, AUTH-013). */
const pairIds = new WeakMap<Observation, string>();

function pairIdOf(obs: Observation, identity: string): string {
  let id = pairIds.get(obs);
  if (id === undefined) {
    id = newPairIdOf(obs, identity);
    pairIds.set(obs, id);
  }
  return id;
}

function newPairIdOf(obs: Observation, identity: string): string {
  const parameters: string[] = [];
  for (const [k, v] of obs.query) parameters.push(`${k}=${v}`);
  const asked: (readonly [string, string])[] = [];
  for (const [name, value] of Object.entries(obs.exchange.request.headers)) {
    const lower = name.toLowerCase();
    if (ANSWER_HEADERS.includes(lower)) asked.push([lower, value]);
  }
  // Most requests carry no query and none of these headers: nothing to sort.
  const query = parameters.length > 1 ? parameters.sort().join('&') : (parameters[0] ?? '');
  if (asked.length > 1) asked.sort(([a], [b]) => a.localeCompare(b));
  const headers = asked.map(([name, value]) => `${name}: ${value}`);
  return JSON.stringify([obs.exchange.request.method, obs.path, query, headers, identity]);
}

const keyOf = (o: PairOutcome) => `${o.status} ${o.code ?? ''} ${o.digest ?? ''}`;
const bucketOf = (obs: Observation) => Math.floor((obs.exchange.startedAt ?? 0) / SAME_TIME_MS);

/** The outcomes of one side in one bucket, in the order of their keys (however they were gathered). */
const outcomesIn = (side: Side, bucket: number): PairOutcome[] =>
  [...(side.get(bucket) ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);

/** The outcomes one side of a pair got near a time bucket. */
function near(side: Side, bucket: number): PairOutcome[] {
  return [bucket - 1, bucket, bucket + 1].flatMap((b) => outcomesIn(side, b));
}

/**
 * Pairs the answers of `rule` across a run and compares each pair once every exchange is seen; the
 * pairs are kept in the table `name` of the run's state.
 */
export function headerPairsAcross(rule: PairRule, state: RuleState, name: string): Across {
  const pairs = state.table<Pair>(name, joinPairs);
  const evidence = new EvidenceTable(state, `${name} evidence`, MAX_EVIDENCE);
  return {
    see(obs) {
      const identity = sameKeyIdentity(obs.credential);
      if (!obs.op || !identity) return;
      const outcome = rule.outcomeOf(obs);
      if (!outcome) return;
      const id = pairIdOf(obs, identity.id);
      const pair: Pair = pairs.get(id) ?? {
        line: `${requestLine(obs)} with ${identity.label}`,
        seq: obs.exchange.seq,
        sides: { bearer: new Map(), 'x-api-key': new Map() },
      };
      const bucket = bucketOf(obs);
      const mine = pair.sides[identity.via].get(bucket) ?? new Map<string, PairOutcome>();
      const key = keyOf(outcome);
      if (mine.has(key)) return;
      mine.set(key, outcome);
      pair.sides[identity.via].set(bucket, mine);
      pairs.set(id, pair);
      evidence.keep(id, obs);
    },
    *finish() {
      for (const [id, pair] of pairs.entries()) {
        const verdict = verdictOf(rule, pair, evidence.get(id));
        if (verdict) yield verdict;
      }
    },
  };
}

function anyAlike(rule: PairRule, bearer: PairOutcome[], xApiKey: PairOutcome[]): boolean {
  return bearer.some((b) => xApiKey.some((x) => rule.difference(b, x) === undefined));
}

/** The first two answers near in time that differ, bearer's first. */
function firstDifferent(
  rule: PairRule,
  bearer: PairOutcome[],
  xApiKey: PairOutcome[],
): { bearer: PairOutcome; xApiKey: PairOutcome } | undefined {
  for (const b of bearer) {
    const x = xApiKey.find((outcome) => rule.difference(b, outcome) !== undefined);
    if (x) return { bearer: b, xApiKey: x };
  }
  return undefined;
}

/**
 * One pair's verdict: holds when the answers near in time are alike; breaks when none are alike;
 * when some are alike and others differ (the same request asked again agreed), the data changed
 * between two requests: advisory, "changed during the run". None when never near.
 */
function verdictOf(rule: PairRule, pair: Pair, evidence: Evidence | undefined): Judgement | undefined {
  let compared: { bearer: PairOutcome; xApiKey: PairOutcome } | undefined;
  let alike = false;
  for (const bucket of [...pair.sides.bearer.keys()].sort((a, b) => a - b)) {
    const bearer = outcomesIn(pair.sides.bearer, bucket);
    const xApiKey = near(pair.sides['x-api-key'], bucket);
    if (xApiKey.length === 0) continue;
    alike ||= anyAlike(rule, bearer, xApiKey);
    compared ??= firstDifferent(rule, bearer, xApiKey);
  }
  if (alike && !compared) return holds(evidence);
  if (!compared) return undefined;
  const difference = rule.difference(compared.bearer, compared.xApiKey) ?? 'the answers differ';
  const shown = `${pair.line}: Authorization: Bearer got ${compared.bearer.label}, x-api-key got ${compared.xApiKey.label} (${difference})`;
  return alike
    ? chose(`changed during the run: ${shown}, and the same when asked again`, false, evidence)
    : breaks(shown, evidence);
}
