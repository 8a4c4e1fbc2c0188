/**
 * What the authentication and isolation rules share: how a refusal and an accepted key read, the
 * answer the project decided for an unusable key, the requests they plan on each operation, and
 * the verdicts on keyless requests, which wait for the whole source: a recording that shows no key
 * header on any exchange may be a sanitized export that dropped them.
 */
import { createHash } from 'node:crypto';
import { isObject } from '../../spec/json-value.ts';
import {
  answered,
  answersAs,
  dataOf,
  describe,
  isClientError,
  isSuccess,
  requestLine,
} from '../core/answers.ts';
import type { Observation } from '../core/observation.ts';
import type { Campaign, Role, Via } from '../core/roles.ts';
import { PRIMARY_KEY, reads, roleOf, VIAS } from '../core/roles.ts';
import type { Across, AcrossContext, Ask, Judgement, Probe, World } from '../core/rule.ts';
import { breaks, chose, holds, unjudged } from '../core/rule.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import type { RuleState, StateTable } from '../core/state.ts';
import { either, sum } from '../core/state.ts';
import { EvidenceTable } from '../core/evidence.ts';
import type { OwaspCategory } from '../core/owasp.ts';
import type { ResponseData } from '../core/exchange.ts';
import type { MockMode } from '../core/report-model.ts';
import { collectionRequest } from './requests.ts';

/** A Prism mock only checks that a key is present: it cannot tell keys apart. */
export const MOCK_KEYS: MockMode = {
  skip: 'the mock only checks that a key is present; it cannot tell keys apart',
};
/** A Prism mock serves the spec's examples to every key. */
export const MOCK_CAMPAIGNS: MockMode = {
  skip: 'the mock has no campaigns: every key sees the same examples',
};

/** Credentials of another scheme than the spec's: Basic with a user and a password. */
export const BASIC_CREDENTIALS = { Authorization: 'Basic dXNlcjpwYXNzd29yZA==' } as const;

/** The error code the project answers every unusable key with (D-AUTH-*), its status from the spec. */
export const UNUSABLE_KEY_CODE = 'unauthorized';

export const at = (obs: Observation, problem: string) => `${requestLine(obs)}: ${problem}`;

/** Whether a body carries data: a success envelope, or anything with a `data` member. */
export function carriesData(response: ResponseData): boolean {
  const body = response.json;
  return isObject(body) && (body.ok === true || (body.data !== undefined && body.data !== null));
}

/** Why an answer is not a refusal (a 4xx that carries no data), or undefined when it is one. */
function notRefused(response: ResponseData): string | undefined {
  if (!isClientError(response.status)) return `answered ${describe(response)}`;
  if (carriesData(response)) return `${response.status}, but data came back with the refusal`;
  return undefined;
}

/** A refusal judged: holds when the answer refuses, breaks naming the credentials when it does not. */
export function refusedVerdict(obs: Observation, what: string): Judgement | undefined {
  const response = obs.exchange.response;
  if (!response) return undefined;
  const problem = notRefused(response);
  return problem ? breaks(at(obs, `${what}: ${problem}`), obs) : holds(obs);
}

/**
 * Whether a reading key's answer shows the key accepted: served, or (an item) not found; a 401 or
 * a 403 refuses it. Other answers (a bad query's 400, a 429) say nothing about the key: undefined.
 */
export function acceptedVerdict(obs: Observation, what: string): Judgement | undefined {
  const response = obs.exchange.response;
  if (!response || !obs.op) return undefined;
  const { status } = response;
  if (isSuccess(status) || status === 304 || (status === 404 && obs.op.kind === 'item')) return holds(obs);
  if (status === 401 || status === 403)
    return breaks(at(obs, `${what} was refused: ${describe(response)}`), obs);
  return undefined;
}

/** The advisory verdict on a refusal: what the deployment answered, and whether it is the project's answer. */
export function refusalChoice(spec: SpecModel, obs: Observation, label?: string): Judgement | undefined {
  const response = obs.exchange.response;
  if (!response || !isClientError(response.status)) return undefined;
  const decided = spec.statusOfCode(UNUSABLE_KEY_CODE) !== undefined;
  const shown = obs.bodyless ? `${response.status}` : answered(response);
  return chose(
    `${label ? `${label} → ` : 'this deployment answers '}${shown}`,
    decided && !obs.bodyless && !answersAs(spec, response, UNUSABLE_KEY_CODE),
    obs,
  );
}

/** The role of the configured key a request carried whole, in either header. */
export function roleOfObs(obs: Observation): Role | undefined {
  return obs.credential.kind === 'key' ? roleOf(obs.credential.key) : undefined;
}

/** The campaign whose data a key reads, for a key that reads (valid and scoped). */
export function readingCampaign(obs: Observation): Campaign | undefined {
  const role = roleOfObs(obs);
  return role && reads(role) ? role.campaign : undefined;
}

/** An operation that needs a key: what every rule of this family judges. */
export const secured = (obs: Observation): obs is Observation & { op: OperationModel } =>
  obs.op !== undefined && obs.op.secured && obs.op.live;

/**
 * The requests of one ask on an operation's targets: a collection at its largest page (the
 * discovery's request, when the key is one discovery uses), an item on a few real ids.
 * Requests that carry anything but the primary key go after the primary key's (phase 2), so a
 * cache keyed by URL alone shows itself.
 */
export function onTargets(
  op: OperationModel,
  world: World,
  ask: Ask,
  targets: 'all' | 'first' = 'all',
): Probe[] {
  const phase = phaseOf(ask);
  // An operation that is neither a collection nor an item of one has no real id to fill its path with.
  if (op.kind === 'other' && op.pathParameters.length > 0) return [];
  if (op.kind === 'collection' || op.kind === 'other') {
    const request =
      op.kind === 'collection' ? collectionRequest(op, world, ask, 'full') : world.request(op, ask);
    return request ? [{ request, phase }] : [];
  }
  const ids = world.realIds(op);
  return (targets === 'all' ? ids : ids.slice(0, 1)).flatMap((id) => {
    const request = world.request(op, { ...ask, id });
    return request ? [{ request, phase }] : [];
  });
}

/**
 * The share of `items` an operation tries, each item on one live operation in turn: every item is
 * tried once a run whatever the spec lists, each operation gets its share, and the header alternates
 * from one round to the next so both headers see the items (with one operation, every item).
 */
export function inTurn<T>(items: readonly T[], op: OperationModel, world: World): { item: T; via: Via }[] {
  const operations = Math.max(1, world.spec.live.length);
  const at = Math.max(0, world.spec.live.indexOf(op));
  return items.flatMap((item, i) =>
    i % operations === at ? [{ item, via: VIAS[Math.floor(i / operations) % 2] as Via }] : [],
  );
}

/** The primary key goes first; every other credential after it. */
function phaseOf(ask: Ask): 1 | 2 {
  const plain = ask.scheme === undefined && ask.dropPrefix === undefined && ask.nearMiss === undefined;
  return ask.key === PRIMARY_KEY && plain && ask.madeUp === undefined ? 1 : 2;
}

/** Short, stable digest of a JSON value in canonical form (keys sorted, listed items by id). */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex').slice(0, 16);
}

/** Canonical JSON: object keys sorted, items with ids ordered by id, so equal data compares equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    return `[${value.every((v) => isObject(v) && typeof v.id === 'string') ? items.sort().join(',') : items.join(',')}]`;
  }
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** The data of an answer, or undefined for a recording without its body. */
export const dataIn = (obs: Observation) => (obs.bodyless ? undefined : dataOf(obs.exchange.response));

/** A verdict held until the source is read whole: how many records gave it, and its hint. */
interface Held {
  n: number;
  differs?: boolean | string[];
  hint?: string;
  /** The OWASP category the finding falls under, for a rule that places each finding. */
  owasp?: OwaspCategory;
}

const joinHeld = (kept: Held, other: Held): Held => ({
  ...kept,
  n: kept.n + other.n,
  ...(kept.differs === undefined && other.differs !== undefined ? { differs: other.differs } : {}),
  ...(kept.hint === undefined && other.hint !== undefined ? { hint: other.hint } : {}),
  ...(kept.owasp === undefined && other.owasp !== undefined ? { owasp: other.owasp } : {}),
});

/** Problems whose exchange is kept as evidence (the earliest). */
const MAX_HELD_EVIDENCE = 500;

/**
 * Verdicts kept small until a source is read whole, in tables of the run's state: how many held,
 * and each distinct problem and choice with how many records gave it.
 */
export class HeldVerdicts {
  private readonly counts: StateTable<number>;
  private readonly problems: StateTable<Held>;
  private readonly choices: StateTable<Held>;
  private readonly evidence: EvidenceTable;

  constructor(state: RuleState, name: string) {
    this.counts = state.table<number>(`${name} held`, sum);
    this.problems = state.table<Held>(`${name} held problems`, joinHeld);
    this.choices = state.table<Held>(`${name} held choices`, joinHeld);
    this.evidence = new EvidenceTable(state, `${name} held evidence`, MAX_HELD_EVIDENCE);
  }

  /** How many verdicts are held. */
  get size(): number {
    let n = this.counts.get('holds') ?? 0;
    for (const table of [this.problems, this.choices]) for (const [, held] of table.entries()) n += held.n;
    return n;
  }

  add(judgement: Judgement | undefined, obs: Observation): void {
    if (!judgement) return;
    switch (judgement.verdict) {
      case 'holds':
        this.counts.set('holds', (this.counts.get('holds') ?? 0) + 1);
        return;
      case 'breaks':
        this.hold(this.problems, `p ${judgement.problem}`, { n: 1, ...hintOf(judgement) }, obs);
        return;
      case 'chose':
        this.hold(this.choices, `c ${judgement.choice}`, { n: 1, differs: judgement.differs ?? false }, obs);
        return;
      case 'unjudged':
        return;
    }
  }

  private hold(table: StateTable<Held>, key: string, held: Held, obs: Observation): void {
    const known = table.get(key);
    table.set(key, known ? joinHeld(known, held) : held);
    if (!known) this.evidence.keep(key, obs);
  }

  /** Every verdict held, as the judge counts them. */
  *release(): Generator<Judgement> {
    for (let i = this.counts.get('holds') ?? 0; i > 0; i--) yield holds();
    for (const [key, { n, hint, owasp }] of this.problems.entries()) {
      const problem = key.slice(2);
      const evidence = this.evidence.get(key);
      for (let i = 0; i < n; i++) yield breaks(problem, i === 0 ? evidence : undefined, hint, owasp);
    }
    for (const [key, { n, differs }] of this.choices.entries()) {
      const choice = key.slice(2);
      const evidence = this.evidence.get(key);
      for (let i = 0; i < n; i++) yield chose(choice, differs ?? false, i === 0 ? evidence : undefined);
    }
  }
}

const hintOf = (judgement: Judgement) =>
  judgement.verdict !== 'breaks'
    ? {}
    : {
        ...(judgement.hint ? { hint: judgement.hint } : {}),
        ...(judgement.owasp ? { owasp: judgement.owasp } : {}),
      };

/** Why keyless requests of a recording are left unjudged when no exchange shows a key header. */
export const NO_KEY_HEADER_RECORDED =
  'the recording shows no key header on any exchange: it may be a sanitized export that dropped them, so a request that looks keyless may have had a key';

/**
 * Judges keyless requests once the whole source is read: a live run always shows its keys; a
 * recording that shows no key header anywhere leaves them unjudged, with that reason.
 */
export function keylessAcross(
  ctx: AcrossContext,
  judgeKeyless: (obs: Observation) => Judgement | undefined,
): Across {
  const name = `${ctx.ruleId} keyless`;
  const keysShown = ctx.state.table<boolean>(`${name} keys shown`, either);
  const verdicts = new HeldVerdicts(ctx.state, name);
  return {
    see(obs) {
      if (obs.credential.kind !== 'none') {
        if (obs.credential.kind !== 'unseen' && !keysShown.get('')) keysShown.set('', true);
        return;
      }
      verdicts.add(judgeKeyless(obs), obs);
    },
    *finish() {
      const held = verdicts.size;
      if (held === 0) return;
      if (!keysShown.get('') && ctx.source === 'traffic') {
        yield unjudged(`${held} keyless answers: ${NO_KEY_HEADER_RECORDED}`);
        return;
      }
      yield* verdicts.release();
    },
  };
}
