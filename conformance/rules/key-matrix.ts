/**
 * The key matrix (§5.2: every key travels in either header): each key role, and an unknown key, in
 * both headers on every live operation, the two answers to the same request compared, so a second,
 * weaker auth path behind one header shows; and the near misses of a key (`../near-miss.ts`), each
 * refused, so a deployment that compares only part of a key shows.
 */
import { errorOf, idsIn, isSuccess } from '../core/answers.ts';
import { BodyMemo } from '../core/body-memo.ts';
import { credentialLabel } from '../core/credentials.ts';
import type { Observation } from '../core/observation.ts';
import { KEY_NAMES, PRIMARY_KEY, VIAS } from '../core/roles.ts';
import { atTheEndToo } from './requests.ts';
import type { Probe, Rule } from '../core/rule.ts';
import { NEAR_MISSES } from '../core/near-miss.ts';
import { digestOf, inTurn, MOCK_KEYS, onTargets, refusedVerdict, secured } from './auth-readings.ts';
import type { PairOutcome } from './header-pairs.ts';
import { headerPairsAcross } from './header-pairs.ts';
import { pinnedDifference, pinnedOf } from './pinned.ts';
import type { SpecModel } from '../core/spec-model.ts';

/** Rate limiting says nothing about the key: such an answer is not compared. */
const TOO_MANY_REQUESTS = 429;

/**
 * What the matrix compares of an answer: status, error code, and which items it served (their ids,
 * not their fields, which may change between two requests), as far as the spec pins them
 * (`pinned.ts`: of a full page, neither the order nor which items beyond its `limit`).
 */
function matrixOutcome(obs: Observation, spec: SpecModel): PairOutcome | undefined {
  const response = obs.exchange.response;
  if (!secured(obs) || !response || response.status === TOO_MANY_REQUESTS) return undefined;
  if (obs.bodyless) return { status: response.status, label: `${response.status}` };
  const code = errorOf(response).code;
  if (!isSuccess(response.status)) {
    return typeof code === 'string'
      ? { status: response.status, code, label: `${response.status} ${code}` }
      : { status: response.status, label: `${response.status}` };
  }
  const { kind } = obs.op;
  const { digest, served } = servedOf[kind === 'collection' ? 'collection' : 'item'].of(response, () => {
    const ids = idsIn(response).sort();
    return {
      digest: digestOf(ids),
      served: kind === 'collection' ? `${ids.length} items` : ids.length > 0 ? `item ${ids[0]}` : 'no item',
    };
  });
  const label = `${response.status} with ${served}`;
  if (kind !== 'collection') return { status: response.status, digest, label };
  const pinned = pinnedOf(spec, obs, { fields: false });
  return { status: response.status, digest: digestOf(pinned), pinned, label };
}

/** Which items a success served, by its body (a recording serves the same answers again and again). */
const servedOf = {
  collection: new BodyMemo<{ digest: string; served: string }>(),
  item: new BodyMemo<{ digest: string; served: string }>(),
};

function matrixDifference(bearer: PairOutcome, xApiKey: PairOutcome): string | undefined {
  if (bearer.status !== xApiKey.status) return 'a different status';
  if (bearer.code !== undefined && xApiKey.code !== undefined && bearer.code !== xApiKey.code)
    return 'a different error code';
  if (bearer.pinned && xApiKey.pinned) {
    const difference = pinnedDifference(bearer.pinned, xApiKey.pinned);
    return difference === undefined ? undefined : `different items: ${difference}`;
  }
  if (bearer.digest !== undefined && xApiKey.digest !== undefined && bearer.digest !== xApiKey.digest)
    return 'different items';
  return undefined;
}

export const keyMatrixRules: Rule[] = [
  {
    id: 'AUTH-013',
    section: '§5.2, §5.5, §5.6, §5.8',
    title: 'Every key gets the same answer in either header (the key matrix)',
    area: 'auth',
    level: 'required',
    owasp: ['API2:2023'],
    mock: MOCK_KEYS,
    unit: 'request pairs',
    expected:
      'each key role, and an unknown key, gets the same status, code and items in Authorization: Bearer and in x-api-key, request by request',
    hint: 'Read both headers through one code path: each key gets the same answer in Authorization: Bearer and in x-api-key (no scope: 403 forbidden; another campaign’s item: 404 not_found; revoked or unknown: the same refusal).',
    plan(op, world) {
      const keys = KEY_NAMES.filter((key) => world.has(key));
      const matrix = VIAS.flatMap((via): Probe[] => [
        ...keys.flatMap((key) => onTargets(op, world, { key, via }, 'first')),
        ...onTargets(op, world, { madeUp: via }, 'first'),
      ]);
      // Once at the start and once at the end, on the first live route: a key that goes wrong late
      // meets the matrix again, and a further live collection costs the end of the run nothing.
      return [...matrix, ...(world.spec.live[0] === op ? atTheEndToo(matrix) : [])];
    },
    across: {
      judge: (ctx) =>
        headerPairsAcross(
          { outcomeOf: (obs) => matrixOutcome(obs, ctx.spec), difference: matrixDifference },
          ctx.state,
          'AUTH-013 pairs',
        ),
    },
  },
  {
    id: 'AUTH-014',
    section: '§5.3, §5.8',
    title:
      'Near misses of a key (one character changed, dropped or added, case flipped, the bare prefix) are refused',
    area: 'auth',
    level: 'required',
    owasp: ['API2:2023'],
    mock: MOCK_KEYS,
    expected: 'a 4xx without data to every key one edit away from a real one, in either header',
    hint: 'Compare the whole key, exactly (hash all of it, case-sensitively): a key one edit away from a real one is an unknown key.',
    plan(op, world) {
      // Each edit on one operation in turn, the header alternating round by round: every edit is
      // tried once a run, however many operations the spec lists.
      return inTurn(NEAR_MISSES, op, world).flatMap(({ item: nearMiss, via }) =>
        onTargets(op, world, { key: PRIMARY_KEY, via, nearMiss }, 'first'),
      );
    },
    judge: (obs) =>
      secured(obs) && obs.credential.kind === 'near-miss'
        ? refusedVerdict(obs, credentialLabel(obs.credential))
        : undefined,
  },
];
