/**
 * Two key headers, two roles (§5.2: a key in either header; §5.9 leaves open which one wins when
 * both carry different keys). Whichever the deployment reads, the answer must be a refusal or what
 * one of the two keys alone gets for the same request: served only when that key alone is served,
 * and no item that key alone was not served. A deployment that authenticates with one header and
 * takes the campaign or the scopes from the other grants what neither key alone gets.
 *
 * The single keys' answers are the key matrix's (AUTH-013 asks every key in both headers on the
 * same requests); per request and key the rule keeps the ids served, never a body, in tables of the
 * run's state, so a recording judged in shards and merged gets the verdicts it gets judged whole.
 */
import { idsIn, isClientError, isSuccess, requestLine } from '../../core/answers.ts';
import { entryKey, EvidenceTable } from '../../core/evidence.ts';
import type { Evidence, Observation } from '../../core/observation.ts';
import type { KeyName } from '../../core/roles.ts';
import { reads, roleOf } from '../../core/roles.ts';
import type { Across, Judgement } from '../../core/rule.ts';
import { breaks, holds, unjudged } from '../../core/rule.ts';
import type { Merge, RuleState } from '../../core/state.ts';
import { carriesData } from '../auth-readings.ts';
import { familyOf } from './catalogue.ts';
import type { Seen } from './recognise.ts';
import { trickLine } from './verdicts.ts';

/** What one key alone got for one request: whether it was served, and which items (sorted). */
interface Alone {
  served: boolean;
  ids: string[];
}

const joinAlone: Merge<Alone> = (kept, other) => ({
  served: kept.served || other.served,
  ids: union(kept.ids, other.ids),
});
const union = (a: string[], b: string[]) =>
  b.every((id) => a.includes(id)) ? a : [...new Set([...a, ...b])].sort();

/** One request with two keys, as its verdict names it. */
interface Two {
  request: string;
  bearer: KeyName;
  xApiKey: KeyName;
  served: boolean;
  status: number;
  /** Undefined when the recording holds no body. */
  ids?: string[];
  line: string;
  curl: string;
}

/** Separates a request from a key's name in a table's key. */
const SEP = '\u0000';
/** Requests with two keys whose exchange is kept as evidence (a recording's earliest). */
const MAX_EVIDENCE = 500;

/** The request without its credentials: method, target as written, and headers that change an answer. */
function requestIdOf(obs: Observation): string {
  const headers = Object.entries(obs.exchange.request.headers)
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .filter(([name]) => name === 'accept' || name === 'if-none-match' || name === 'prefer')
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([obs.exchange.request.method, obs.target, headers]);
}

/** Served (a 2xx carrying data, or a 2xx without its recorded body), refused (a 4xx), or neither. */
function servedOf(obs: Observation): boolean | undefined {
  const response = obs.exchange.response;
  if (!response || response.status === 429) return undefined;
  if (isSuccess(response.status)) return obs.bodyless || carriesData(response);
  return isClientError(response.status) ? false : undefined;
}

/**
 * What each key alone got per request (`request` SEP `key`), and every request with two keys by its
 * entry number, in tables of the run's state: shards' records join into the whole recording's.
 */
export function twoKeysAcross(state: RuleState): Across {
  const alone = state.table<Alone>('AUTH-021 alone', joinAlone);
  const twos = state.table<Two>('AUTH-021 two keys', (kept) => kept);
  const evidence = new EvidenceTable(state, 'AUTH-021 evidence', MAX_EVIDENCE);
  return {
    see(obs) {
      if (!obs.op?.live || !obs.op.secured) return;
      const served = servedOf(obs);
      const response = obs.exchange.response;
      if (served === undefined || !response) return;
      const credential = obs.credential;
      if (credential.kind === 'key') {
        const key = `${requestIdOf(obs)}${SEP}${credential.key}`;
        const known = alone.get(key);
        const ids = served && !obs.bodyless ? [...idsIn(response)].sort() : [];
        if (known && (known.served || !served) && ids.every((id) => known.ids.includes(id))) return;
        alone.set(key, known ? joinAlone(known, { served, ids }) : { served, ids });
        return;
      }
      if (credential.kind !== 'two' || credential.bearer.kind !== 'key' || credential.xApiKey.kind !== 'key')
        return;
      const seq = entryKey(obs);
      twos.set(seq, {
        request: requestIdOf(obs),
        bearer: credential.bearer.key,
        xApiKey: credential.xApiKey.key,
        served,
        status: response.status,
        ...(obs.bodyless ? {} : { ids: idsIn(response) }),
        line: requestLine(obs),
        curl: obs.exchange.request.curl,
      });
      evidence.keep(seq, obs);
    },
    finish() {
      const judgements: Judgement[] = [];
      for (const [seq, two] of twos.entries()) {
        const single = (key: KeyName) => alone.get(`${two.request}${SEP}${key}`);
        judgements.push(verdictOf(two, single(two.bearer), single(two.xApiKey), evidence.get(seq)));
      }
      return judgements;
    },
  };
}

/** The catalogue's entry for these two keys, or the keys themselves as reports name them. */
function pairOf(two: Two): Pick<Seen, 'family' | 'label' | 'transform'> {
  const shape = { method: 'GET', path: '/', headers: {}, nameAt: 1 };
  const transform = familyOf('two-keys').find((t) => {
    const auth = [t.make(shape)?.auth ?? []].flat();
    return auth[0]?.key === two.bearer && auth[1]?.key === two.xApiKey;
  });
  const label = `$${two.bearer} in Authorization, $${two.xApiKey} in x-api-key`;
  return { family: 'two-keys', label, ...(transform ? { transform } : {}) };
}

/** Whether a two-key answer is what this key alone got: served alike, no item it was not served. */
function followed(two: Two, single: Alone | undefined): boolean {
  if (!single?.served) return false;
  return (two.ids ?? []).every((id) => single.ids.includes(id));
}

function verdictOf(
  two: Two,
  bearer: Alone | undefined,
  xApiKey: Alone | undefined,
  evidence: Evidence | undefined,
): Judgement {
  if (!two.served) return holds(evidence);
  if (!bearer || !xApiKey)
    return unjudged(
      'a request with two keys was served, but not asked with each key alone to compare',
      evidence,
    );
  if (followed(two, bearer) || followed(two, xApiKey)) return holds(evidence);
  const eachAlone = `$${two.bearer} alone ${bearer.served ? 'was served other items' : 'was refused'}, $${two.xApiKey} alone ${xApiKey.served ? 'was served other items' : 'was refused'}`;
  // Neither key reads alone: one header authenticated, the other authorised.
  const owasp = reads(roleOf(two.bearer)) || reads(roleOf(two.xApiKey)) ? 'API1:2023' : 'API2:2023';
  return breaks(
    `${trickLine(pairOf(two))} on ${two.line}: answered ${two.status} with data, but ${eachAlone}; reproduce: ${two.curl}`,
    evidence,
    undefined,
    owasp,
  );
}
