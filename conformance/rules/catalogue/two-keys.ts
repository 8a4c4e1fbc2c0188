/**
 * Two key headers, two roles (§5.2: a key in either header; §5.9 leaves open which one wins when
 * both carry different keys). Whichever the deployment reads, the answer must be a refusal or what
 * one of the two keys alone gets for the same request: served only when that key alone is served,
 * and no item that key alone was not served. A deployment that authenticates with one header and
 * takes the campaign or the scopes from the other grants what neither key alone gets.
 *
 * The single keys' answers are the key matrix's (AUTH-013 asks every key in both headers on the
 * same requests); per request and key the rule keeps the ids served, never a body.
 */
import { idsIn, isClientError, isSuccess, requestLine } from '../../core/answers.ts';
import type { Observation } from '../../core/observation.ts';
import type { KeyName } from '../../core/roles.ts';
import { reads, roleOf } from '../../core/roles.ts';
import type { Across, Judgement } from '../../core/rule.ts';
import { breaks, holds, unjudged } from '../../core/rule.ts';
import { carriesData } from '../auth-readings.ts';
import { familyOf } from './catalogue.ts';
import type { Seen } from './recognise.ts';
import { trickLine } from './verdicts.ts';

/** Requests with two keys kept, and ids kept per request and key (a recording can hold many). */
const MAX_KEPT = 2000;
const MAX_IDS = 1000;

/** What one key alone got for one request: whether it was served, and which items. */
interface Alone {
  served: boolean;
  ids: Set<string>;
}

interface Two {
  request: string;
  bearer: KeyName;
  xApiKey: KeyName;
  served: boolean;
  status: number;
  /** Undefined when the recording holds no body. */
  ids?: string[];
  obs: Observation;
}

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

export function twoKeysAcross(): Across {
  const alone = new Map<string, Map<KeyName, Alone>>();
  const twos: Two[] = [];
  return {
    see(obs) {
      if (!obs.op?.live || !obs.op.secured) return;
      const served = servedOf(obs);
      const response = obs.exchange.response;
      if (served === undefined || !response) return;
      const credential = obs.credential;
      const request = requestIdOf(obs);
      if (credential.kind === 'key') {
        const byKey =
          alone.get(request) ?? (alone.size < MAX_KEPT * 4 ? new Map<KeyName, Alone>() : undefined);
        if (!byKey) return;
        alone.set(request, byKey);
        const known = byKey.get(credential.key) ?? { served: false, ids: new Set<string>() };
        byKey.set(credential.key, known);
        known.served ||= served;
        for (const id of served && !obs.bodyless ? idsIn(response) : [])
          if (known.ids.size < MAX_IDS) known.ids.add(id);
        return;
      }
      if (credential.kind !== 'two' || credential.bearer.kind !== 'key' || credential.xApiKey.kind !== 'key')
        return;
      if (twos.length >= MAX_KEPT) return;
      twos.push({
        request,
        bearer: credential.bearer.key,
        xApiKey: credential.xApiKey.key,
        served,
        status: response.status,
        ...(obs.bodyless ? {} : { ids: idsIn(response) }),
        obs,
      });
    },
    finish() {
      return twos.map((two) => verdictOf(two, alone.get(two.request)));
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
  return (two.ids ?? []).every((id) => single.ids.has(id));
}

function verdictOf(two: Two, byKey: Map<KeyName, Alone> | undefined): Judgement {
  const bearer = byKey?.get(two.bearer);
  const xApiKey = byKey?.get(two.xApiKey);
  if (!two.served) return holds(two.obs);
  if (!bearer || !xApiKey)
    return unjudged(
      'a request with two keys was served, but not asked with each key alone to compare',
      two.obs,
    );
  if (followed(two, bearer) || followed(two, xApiKey)) return holds(two.obs);
  const eachAlone = `$${two.bearer} alone ${bearer.served ? 'was served other items' : 'was refused'}, $${two.xApiKey} alone ${xApiKey.served ? 'was served other items' : 'was refused'}`;
  // Neither key reads alone: one header authenticated, the other authorised.
  const owasp = reads(roleOf(two.bearer)) || reads(roleOf(two.xApiKey)) ? 'API1:2023' : 'API2:2023';
  return breaks(
    `${trickLine(pairOf(two))} on ${requestLine(two.obs)}: answered ${two.status} with data, but ${eachAlone}; reproduce: ${two.obs.exchange.request.curl}`,
    two.obs,
    undefined,
    owasp,
  );
}
