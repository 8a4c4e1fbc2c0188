/**
 * Authentication (§5), on every live GET operation and every exchange that bears on it, from a live
 * run or a recording: a key is accepted in either header, alike; missing, unknown, malformed and
 * revoked credentials are refused (what status and code is the deployment's choice, reported as
 * advisory); a key without the operation's scope gets the spec's `forbidden` refusal.
 */
import { answered, answersAs, describe, errorOf, idsIn, isClientError, isSuccess } from '../core/answers.ts';
import { credentialLabel } from '../core/credentials.ts';
import { entryKey, EvidenceTable } from '../core/evidence.ts';
import type { Evidence, Observation } from '../core/observation.ts';
import type { Campaign } from '../core/roles.ts';
import { NO_SCOPE_KEY, OTHER_CAMPAIGN_KEY, PRIMARY_KEY, REVOKED_KEY, reads, roleOf } from '../core/roles.ts';
import type { Across, Judgement, Probe, Rule, RuleContext, World } from '../core/rule.ts';
import { breaks, chose, holds, unjudged } from '../core/rule.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import type { RuleState, StateTable } from '../core/state.ts';
import type { ResponseData } from '../core/exchange.ts';
import {
  acceptedVerdict,
  at,
  BASIC_CREDENTIALS,
  carriesData,
  dataIn,
  digestOf,
  keylessAcross,
  MOCK_KEYS,
  inTurn,
  onTargets,
  refusalChoice,
  refusedVerdict,
  roleOfObs,
  secured,
  UNUSABLE_KEY_CODE,
} from './auth-readings.ts';
import { headerPairsAcross } from './header-pairs.ts';
import { askedAgainWhenDifferent, documentedBody, pinnedDifference, pinnedOf } from './pinned.ts';

/** The code of a key without the operation's scope (§5.6), its status from the spec. */
const NO_SCOPE_CODE = 'forbidden';
/** What an item the key's campaign does not hold gets (§4.3 rule 1). */
const NOT_FOUND_CODE = 'not_found';
/** The project's answer to both headers with different keys (D-AUTH-BOTH). */
const TWO_KEYS_CODE = 'conflicting_credentials';

const AUTHENTICATION = ['API2:2023'] as const;

/** A reading key (valid, scoped) in this header, on an operation that needs a key. */
function readingKeyIn(obs: Observation, via: 'bearer' | 'x-api-key'): boolean {
  const role = roleOfObs(obs);
  return (
    secured(obs) &&
    obs.credential.kind === 'key' &&
    obs.credential.via === via &&
    role !== undefined &&
    reads(role)
  );
}

/** Made-up keys, in either header, on an operation that needs a key. */
const madeUp = (obs: Observation) => secured(obs) && obs.credential.kind === 'made-up';
const malformed = (obs: Observation) => secured(obs) && obs.credential.kind === 'malformed';
/** The revoked key (a key of a role that no longer works), in either header. */
const revoked = (obs: Observation) => secured(obs) && roleOfObs(obs)?.valid === false;

/**
 * Credentials no deployment may accept, built from the primary key where the point is its shape
 * (a scheme other than Bearer, no scheme, the key without its prefix, a scheme inside x-api-key).
 */
function malformedAsks(spec: SpecModel) {
  return [
    { headers: { ...BASIC_CREDENTIALS } },
    ...(spec.keyPrefix ? [{ key: PRIMARY_KEY, via: 'bearer' as const, dropPrefix: spec.keyPrefix }] : []),
    { key: PRIMARY_KEY, via: 'bearer' as const, scheme: 'Token' },
    { key: PRIMARY_KEY, via: 'bearer' as const, scheme: '' },
    { key: PRIMARY_KEY, via: 'x-api-key' as const, scheme: 'Bearer' },
  ];
}

/** Each malformed form on one live operation in turn: every form is tried once a run. */
const malformedProbes = (op: OperationModel, world: World): Probe[] =>
  inTurn(malformedAsks(world.spec), op, world).flatMap(({ item }) => onTargets(op, world, item, 'first'));

/**
 * The primary key in both headers, on every target: the x-api-key answers are compared with
 * Bearer's, and a pair whose answers differ is asked again together (`askedAgainWhenDifferent`).
 */
function primaryBothHeaders(op: OperationModel, world: World): Probe[] {
  const bearer = onTargets(op, world, { key: PRIMARY_KEY, via: 'bearer' });
  const xApiKey = onTargets(op, world, { key: PRIMARY_KEY, via: 'x-api-key' });
  const paired = bearer.flatMap((probe, i) => {
    const other = xApiKey[i];
    return other ? askedAgainWhenDifferent(world.spec, op, probe, other) : [probe];
  });
  return [...paired, ...xApiKey.slice(bearer.length)];
}

/**
 * The primary key's data in x-api-key against Bearer, request by request, by what the spec pins of
 * it (`pinned.ts`): items by id and their documented fields, not a full page's order or membership.
 */
function sameDataAcross(ctx: RuleContext): Across {
  return headerPairsAcross(
    {
      outcomeOf(obs) {
        const response = obs.exchange.response;
        const data = dataIn(obs);
        if (obs.credential.kind !== 'key' || obs.credential.key !== PRIMARY_KEY || !response)
          return undefined;
        if (!isSuccess(response.status) || data === undefined) return undefined;
        const items = Array.isArray(data) ? `${data.length} items` : 'one item';
        const pinned = pinnedOf(ctx.spec, obs);
        return {
          status: response.status,
          digest: digestOf(pinned),
          pinned,
          label: `${response.status} with ${items}`,
        };
      },
      difference: (bearer, xApiKey) =>
        bearer.pinned && xApiKey.pinned ? pinnedDifference(bearer.pinned, xApiKey.pinned) : undefined,
    },
    ctx.state,
    'AUTH-002 pairs',
  );
}

export const authRules: Rule[] = [
  {
    id: 'AUTH-001',
    section: '§5.2',
    title: 'A key is accepted in Authorization: Bearer',
    area: 'auth',
    level: 'required',
    owasp: AUTHENTICATION,
    mock: 'run',
    expected:
      'a valid, scoped key in Authorization: Bearer is served (an item it cannot read: not found), never refused',
    hint: 'Accept Authorization: Bearer <API_KEY> (the scheme name case-insensitively).',
    plan: (op, world) => onTargets(op, world, { key: PRIMARY_KEY, via: 'bearer' }),
    judge: (obs) =>
      readingKeyIn(obs, 'bearer') ? acceptedVerdict(obs, credentialLabel(obs.credential)) : undefined,
  },
  {
    id: 'AUTH-002',
    section: '§5.2',
    title: 'A key is accepted in x-api-key and gives the same data as in Authorization: Bearer',
    area: 'auth',
    level: 'required',
    owasp: AUTHENTICATION,
    mock: 'run',
    expected:
      'a valid, scoped key in x-api-key is served like in Bearer; the primary key gets the same data in both',
    hint: 'Accept x-api-key: <API_KEY> exactly like the Bearer header, through the same code path.',
    plan: primaryBothHeaders,
    judge: (obs) =>
      readingKeyIn(obs, 'x-api-key') ? acceptedVerdict(obs, credentialLabel(obs.credential)) : undefined,
    across: { judge: sameDataAcross },
  },
  {
    id: 'AUTH-003',
    section: '§5.2, §5.8',
    title: 'A request without a key is refused (4xx, no data)',
    area: 'auth',
    level: 'required',
    owasp: AUTHENTICATION,
    mock: 'run',
    expected: 'a 4xx without data to every request of a secured operation that carries no key',
    hint: 'Refuse requests without a key with a 4xx error envelope (the project answers 401 unauthorized).',
    plan: (op, world) => onTargets(op, world, {}),
    across: {
      judge: (ctx) => keylessAcross(ctx, (obs) => (secured(obs) ? refusedVerdict(obs, 'no key') : undefined)),
    },
  },
  {
    id: 'AUTH-004',
    section: '§5.8',
    title: 'Status and code for a missing key (the spec leaves it open)',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-MISSING',
    owasp: AUTHENTICATION,
    mock: 'run',
    expected: 'project decision: 401 unauthorized (any 4xx is conformant)',
    hint: 'Any 4xx error envelope is conformant.',
    plan: (op, world) => onTargets(op, world, {}),
    across: {
      judge: (ctx) => keylessAcross(ctx, (obs) => (secured(obs) ? refusalChoice(ctx.spec, obs) : undefined)),
    },
  },
  {
    id: 'AUTH-005',
    section: '§5.8',
    title: 'An unknown well-formed key is refused (4xx, no data)',
    area: 'auth',
    level: 'required',
    owasp: AUTHENTICATION,
    mock: MOCK_KEYS,
    expected: 'a 4xx without data to a key shaped like a key that no deployment issued, in either header',
    hint: 'Refuse keys the service does not know, with a 4xx error envelope.',
    // A made-up key is the same stranger to every item: one real item per operation shows it.
    plan: (op, world) => onTargets(op, world, { madeUp: 'bearer' }, 'first'),
    judge: (obs) => (madeUp(obs) ? refusedVerdict(obs, credentialLabel(obs.credential)) : undefined),
  },
  {
    id: 'AUTH-006',
    section: '§5.8',
    title: 'Status and code for an unknown key (the spec leaves it open)',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-UNKNOWN',
    owasp: AUTHENTICATION,
    mock: MOCK_KEYS,
    expected: 'project decision: 401 unauthorized (any 4xx is conformant)',
    hint: 'Any 4xx error envelope is conformant.',
    plan: (op, world) => onTargets(op, world, { madeUp: 'bearer' }, 'first'),
    judge: (obs, ctx) => (madeUp(obs) ? refusalChoice(ctx.spec, obs) : undefined),
  },
  {
    id: 'AUTH-007',
    section: '§5.2, §5.3, §5.8',
    title:
      'Malformed credentials are refused (Basic, a token without the key prefix, another scheme, no scheme, a scheme in x-api-key)',
    area: 'auth',
    level: 'required',
    owasp: AUTHENTICATION,
    mock: MOCK_KEYS,
    expected:
      'a 4xx without data to credentials not shaped as Bearer <key> or x-api-key: <key>, even around a real key',
    hint: 'Accept only Authorization: Bearer <key> and x-api-key: <key>, each value shaped like a whole key (its prefix included); refuse anything else with a 4xx error envelope.',
    plan: malformedProbes,
    judge: (obs) => (malformed(obs) ? refusedVerdict(obs, credentialLabel(obs.credential)) : undefined),
  },
  {
    id: 'AUTH-008',
    section: '§5.8',
    title: 'Status and code for malformed credentials (the spec leaves it open)',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-MALFORMED',
    owasp: AUTHENTICATION,
    mock: MOCK_KEYS,
    expected: 'project decision: 401 unauthorized (any 4xx is conformant)',
    hint: 'Any 4xx error envelope is conformant.',
    plan: malformedProbes,
    judge: (obs, ctx) =>
      malformed(obs) ? refusalChoice(ctx.spec, obs, credentialLabel(obs.credential)) : undefined,
  },
  {
    id: 'AUTH-009',
    section: '§5.5',
    title: 'A revoked key is refused (4xx, no data), in either header',
    area: 'auth',
    level: 'required',
    owasp: AUTHENTICATION,
    needs: [REVOKED_KEY],
    mock: MOCK_KEYS,
    expected: 'a 4xx without data to every request carrying the revoked key',
    hint: 'A revoked key must stop working immediately, in both headers: refuse it with a 4xx error envelope.',
    plan: (op, world) => onTargets(op, world, { key: REVOKED_KEY, via: 'bearer' }),
    judge: (obs) => (revoked(obs) ? refusedVerdict(obs, credentialLabel(obs.credential)) : undefined),
  },
  {
    id: 'AUTH-010',
    section: '§5.5, §5.8',
    title: 'Status and code for a revoked key, compared with an unknown key (the spec leaves it open)',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-REVOKED',
    owasp: AUTHENTICATION,
    needs: [REVOKED_KEY],
    mock: MOCK_KEYS,
    expected: 'project decision: 401 unauthorized, exactly the answer an unknown key gets',
    hint: 'Any 4xx error envelope is conformant; the project answers exactly as for an unknown key.',
    plan: (op, world) => [
      ...onTargets(op, world, { key: REVOKED_KEY, via: 'bearer' }, 'first'),
      ...onTargets(op, world, { madeUp: 'bearer' }, 'first'),
    ],
    across: { judge: (ctx) => revokedLikeUnknownAcross(ctx.spec, ctx.state) },
  },
  {
    id: 'AUTH-011',
    section: '§5.6, §7',
    title: "A key without the operation's scope gets the spec's forbidden refusal",
    area: 'auth',
    level: 'required',
    owasp: ['API5:2023'],
    needs: [NO_SCOPE_KEY],
    mock: 'run',
    expected:
      'the status the spec gives error code "forbidden" (403), with that code and no data, in either header',
    hint: 'Check the key’s scopes against the operation’s x-required-scopes: a key without them gets 403 {"ok":false,"error":{"code":"forbidden",...}}.',
    plan: (op, world) => onTargets(op, world, { key: NO_SCOPE_KEY, via: 'bearer' }),
    judge(obs, ctx) {
      const role = roleOfObs(obs);
      if (!secured(obs) || !role || !role.valid || role.scoped) return undefined;
      return scopeRefusalVerdict(obs, ctx.spec);
    },
  },
  {
    id: 'AUTH-012',
    section: '§5.9',
    title: 'Both headers with different keys (the spec leaves it open)',
    area: 'auth',
    level: 'advisory',
    decision: 'D-AUTH-BOTH',
    owasp: AUTHENTICATION,
    mock: MOCK_KEYS,
    expected:
      'project decision: 400 conflicting_credentials (refusing, or preferring one header, are conformant)',
    hint: 'Refusing or preferring one header are both conformant; the project refuses with 400 conflicting_credentials.',
    plan: (op, world) => twoKeysProbes(op, world),
    across: { judge: (ctx) => twoKeysAcross(ctx.spec, ctx.state) },
  },
];

/** §5.6: the spec's `forbidden` status and code, no data; a recording without bodies shows the status. */
function scopeRefusalVerdict(
  obs: Observation & { op: OperationModel },
  spec: SpecModel,
): Judgement | undefined {
  const response = obs.exchange.response;
  if (!response) return undefined;
  const status = spec.statusOfCode(NO_SCOPE_CODE);
  if (status === undefined)
    return unjudged(`the spec under test names no "${NO_SCOPE_CODE}" error code`, obs);
  const codes = scopeCodesOf(spec, obs.op, status);
  const what = credentialLabel(obs.credential);
  const expected = `${status} ${codes.join(' or ')}`;
  if (obs.bodyless) {
    return response.status === status
      ? holds(obs)
      : breaks(at(obs, `${what} got ${response.status}, not ${expected}`), obs);
  }
  const code = errorOf(response).code;
  if (
    response.status === status &&
    typeof code === 'string' &&
    codes.includes(code) &&
    !carriesData(response)
  )
    return holds(obs);
  return breaks(at(obs, `${what} got ${describe(response)}, not ${expected}`), obs);
}

/**
 * The codes of the scope refusal on an operation: `forbidden` (§5.6), unless the operation's own
 * documented examples at that status name other codes and not it.
 */
function scopeCodesOf(spec: SpecModel, op: OperationModel, status: number): string[] {
  const documented = spec.codesOf(op, status);
  return documented.length === 0 || documented.includes(NO_SCOPE_CODE) ? [NO_SCOPE_CODE] : documented;
}

/** A request with the primary key in Bearer and another key (or a made-up one) in x-api-key. */
function twoKeysProbes(op: OperationModel, world: World): Probe[] {
  return onTargets(op, world, { key: PRIMARY_KEY, via: 'bearer' }, 'first').flatMap((probe) => {
    const request = world.has(OTHER_CAMPAIGN_KEY)
      ? {
          ...probe.request,
          auth: [
            { key: PRIMARY_KEY, via: 'bearer' as const },
            { key: OTHER_CAMPAIGN_KEY, via: 'x-api-key' as const },
          ],
        }
      : { ...probe.request, madeUpKey: 'x-api-key' as const };
    return [{ request, phase: 2 as const }];
  });
}

/** The campaign each header's credentials read, when they are a reading key. */
function campaignOfSide(side: Observation['credential']): Campaign | undefined {
  if (side.kind !== 'key') return undefined;
  const role = roleOf(side.key);
  return reads(role) ? role.campaign : undefined;
}

/** Requests with two different credentials kept for the verdict: a few facts each, never a body. */
interface TwoKeys {
  status: number;
  /** Undefined when the answer has no error code, or was recorded without its body. */
  code?: string;
  /** The ids of the items served (a few). */
  served: string[];
  /** An item operation's id: a `not_found` for it tells which key was read. */
  asked?: string;
  notFound: boolean;
  bearer: Observation['credential'];
  xApiKey: Observation['credential'];
}

/** Kept at most (a recording may hold many, the earliest are kept); the rest are not reported one by one. */
const MAX_TWO_KEYS = 1000;

const unionOf = <T>(kept: Set<T>, other: Set<T>): Set<T> => {
  for (const value of other) kept.add(value);
  return kept;
};

/**
 * D-AUTH-BOTH: what a deployment does with two different keys, one per header: refuses (with what),
 * or reads one of them, told by whose items it served, or whose item it did not find (the
 * campaigns that single keys were served each item).
 */
function twoKeysAcross(spec: SpecModel, state: RuleState): Across {
  const owners = state.table<Set<Campaign>>('AUTH-012 owners', unionOf);
  const seen = state.table<TwoKeys>('AUTH-012 requests', (kept) => kept);
  const evidence = new EvidenceTable(state, 'AUTH-012 evidence', 1);
  let kept = 0;
  return {
    see(obs) {
      const response = obs.exchange.response;
      if (!secured(obs) || !response) return;
      const credential = obs.credential;
      if (credential.kind === 'key') {
        const campaign = campaignOfSide(credential);
        if (campaign && isSuccess(response.status)) {
          for (const id of idsIn(response)) {
            const held = owners.get(id);
            if (!held?.has(campaign)) owners.set(id, (held ?? new Set()).add(campaign));
          }
        }
        return;
      }
      if (credential.kind !== 'two' || kept >= MAX_TWO_KEYS) return;
      kept++;
      const code = obs.bodyless ? undefined : errorOf(response).code;
      const asked = obs.op.kind === 'item' ? obs.params[obs.op.pathParameters.at(-1) ?? ''] : undefined;
      seen.set(entryKey(obs), {
        status: response.status,
        ...(typeof code === 'string' ? { code } : {}),
        served: idsIn(response).slice(0, 3),
        ...(asked !== undefined ? { asked } : {}),
        notFound: !obs.bodyless && answersAs(spec, response, NOT_FOUND_CODE),
        bearer: credential.bearer,
        xApiKey: credential.xApiKey,
      });
      evidence.keep('first', obs);
    },
    *finish() {
      let n = 0;
      for (const [, two] of seen.entries()) {
        if (n++ === MAX_TWO_KEYS) return;
        yield twoKeysChoice(spec, two, owners, n === 1 ? evidence.get('first') : undefined);
      }
    },
  };
}

function twoKeysChoice(
  spec: SpecModel,
  two: TwoKeys,
  owners: StateTable<Set<Campaign>>,
  obs: Evidence | undefined,
): Judgement {
  const decided = spec.statusOfCode(TWO_KEYS_CODE) !== undefined;
  const shown = `${two.status}${two.code ? ` ${two.code}` : ''}`;
  const winner = winnerOf(two, owners);
  if (winner) return chose(`${shown}: this deployment prefers ${winner}`, decided, obs);
  if (isClientError(two.status)) {
    const asDecided = two.status === spec.statusOfCode(TWO_KEYS_CODE) && two.code === TWO_KEYS_CODE;
    return chose(`refuses two different keys: ${shown}`, decided && !asDecided, obs);
  }
  return chose(`${shown}: this deployment reads one of the two keys`, decided, obs);
}

/**
 * Which header's key a deployment read: the only configured one beside a made-up key, the one
 * whose campaign holds the items served, or the one whose campaign does not hold the item not found.
 */
function winnerOf(
  two: TwoKeys,
  owners: StateTable<Set<Campaign>>,
): 'Authorization' | 'x-api-key' | undefined {
  const served = isSuccess(two.status);
  if (!served && !(two.notFound && two.asked !== undefined)) return undefined;
  if (served && two.bearer.kind === 'key' && two.xApiKey.kind === 'made-up') return 'Authorization';
  if (served && two.xApiKey.kind === 'key' && two.bearer.kind === 'made-up') return 'x-api-key';
  const holders = new Set(
    (served ? two.served : [two.asked as string]).flatMap((id) => [...(owners.get(id) ?? [])]),
  );
  const bearer = campaignOfSide(two.bearer);
  const xApiKey = campaignOfSide(two.xApiKey);
  const byBearer = bearer !== undefined && holders.has(bearer);
  const byXApiKey = xApiKey !== undefined && holders.has(xApiKey);
  if (byBearer === byXApiKey) return undefined;
  // Served: the holder's key was read. Not found: the key whose campaign does not hold it was.
  return byBearer === served ? 'Authorization' : 'x-api-key';
}

/** What a revoked key got on an operation, in one shape: how often, how reports show it, whether as decided. */
interface RevokedAnswer {
  n: number;
  label: string;
  decided: boolean;
  seq: number;
}

const joinRevoked = (kept: RevokedAnswer, other: RevokedAnswer): RevokedAnswer => ({
  ...(other.seq < kept.seq ? other : kept),
  n: kept.n + other.n,
});

/** What a revoked key got, against what an unknown key got on the same operation (D-AUTH-REVOKED). */
function revokedLikeUnknownAcross(spec: SpecModel, state: RuleState): Across {
  const unknown = state.table<Set<string>>('AUTH-010 unknown', unionOf);
  const revokedAnswers = state.table<RevokedAnswer>('AUTH-010 revoked', joinRevoked);
  const evidence = new EvidenceTable(state, 'AUTH-010 evidence', 500);
  // Compared by what the spec documents of the refusal: a request id or a timestamp never differs.
  const shapeOf = (obs: Observation, response: ResponseData) =>
    obs.bodyless
      ? `${response.status}`
      : `${response.status} ${digestOf(documentedBody(spec, obs.op, response))}`;
  return {
    see(obs) {
      const response = obs.exchange.response;
      if (!secured(obs) || !response || !isClientError(response.status)) return;
      const op = obs.op.operationId;
      if (madeUp(obs)) {
        const shapes = unknown.get(op) ?? new Set<string>();
        const shape = shapeOf(obs, response);
        if (!shapes.has(shape)) unknown.set(op, shapes.add(shape));
        return;
      }
      if (!revoked(obs)) return;
      const key = JSON.stringify([op, shapeOf(obs, response)]);
      const known = revokedAnswers.get(key);
      if (known) {
        known.n++;
        revokedAnswers.set(key, known);
        return;
      }
      revokedAnswers.set(key, {
        n: 1,
        label: obs.bodyless ? `${response.status}` : answered(response),
        decided:
          obs.bodyless ||
          answersAs(spec, response, UNUSABLE_KEY_CODE) ||
          spec.statusOfCode(UNUSABLE_KEY_CODE) === undefined,
        seq: obs.exchange.seq,
      });
      evidence.keep(key, obs);
    },
    *finish() {
      for (const [key, { n, label, decided }] of revokedAnswers.entries()) {
        const [op, shape] = JSON.parse(key) as [string, string];
        const unknownShapes = unknown.get(op);
        const same = unknownShapes === undefined ? undefined : unknownShapes.has(shape);
        const compared =
          same === undefined
            ? ''
            : same
              ? '; the same answer as an unknown key'
              : '; a different answer from an unknown key';
        const choice = `this deployment answers ${label}${compared}`;
        const obs = evidence.get(key);
        for (let i = 0; i < n; i++) yield chose(choice, !decided, i === 0 ? obs : undefined);
      }
    },
  };
}
