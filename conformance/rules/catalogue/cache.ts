/**
 * Caches and order (§5.1: a key reads its own campaign; §5.5: a revoked key stops working): the
 * same request with the same credentials, answered twice within a minute, is served both times or
 * refused both times (a 404 or a 429 is neither). A cache keyed by less than the credentials shows as a flip: the owner's read
 * made again after other keys' requests comes back refused (a refusal cached for the URL), or a
 * request without a key comes back served (the owner's answer cached for the URL). A live run makes
 * the owner's read and a keyless one again after every other request (phase 3); a recording is
 * judged on the reads it repeats. Per request the rule keeps a few statuses and times, never a body.
 */
import { isSuccess, requestLine } from '../../core/answers.ts';
import type { Credential } from '../../core/credentials.ts';
import { credentialLabel } from '../../core/credentials.ts';
import type { Observation } from '../../core/observation.ts';
import type { Across, Judgement } from '../../core/rule.ts';
import { breaks, holds } from '../../core/rule.ts';
import { FAMILIES, familyOf } from './catalogue.ts';
import { trickLine } from './verdicts.ts';

/** Answers closer in time than this see the same data and the same keys. */
const SAME_TIME_MS = 60_000;
/** Requests followed, and answers kept per request (a recording can hold millions). */
const MAX_REQUESTS = 100_000;
const MAX_ANSWERS = 8;

interface Answered {
  served: boolean;
  status: number;
  at: number;
  obs?: Observation;
}

/**
 * Who asked, in words a cache could key on: the credentials and the header they came in. A key the
 * run does not know may be created or revoked between two reads: it is not compared.
 */
function askerOf(credential: Credential): string | undefined {
  const compared = ['none', 'key', 'made-up', 'near-miss', 'malformed'];
  return compared.includes(credential.kind) ? credentialLabel(credential) : undefined;
}

/** The request and its asker: what the same read made again shares. */
function identityOf(obs: Observation, asker: string): string {
  const headers = Object.entries(obs.exchange.request.headers)
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .filter(([name]) =>
      ['accept', 'accept-encoding', 'if-none-match', 'if-modified-since', 'prefer', 'range'].includes(name),
    )
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([obs.exchange.request.method, obs.target, headers, asker]);
}

/**
 * Served (2xx) or refused (any other 4xx). A 429 says nothing of a cache, nor does a 404: an item
 * deleted between two reads is not found the second time, and that is no cache's doing.
 */
function servedOf(status: number): boolean | undefined {
  if (isSuccess(status)) return true;
  return status >= 400 && status <= 499 && status !== 404 && status !== 429 ? false : undefined;
}

export function cacheAcross(): Across {
  const reads = new Map<string, Answered[]>();
  return {
    see(obs) {
      const response = obs.exchange.response;
      if (!obs.op?.live || !obs.op.secured || !response) return;
      const asker = askerOf(obs.credential);
      const served = servedOf(response.status);
      if (asker === undefined || served === undefined) return;
      const identity = identityOf(obs, asker);
      const answers = reads.get(identity) ?? (reads.size < MAX_REQUESTS ? [] : undefined);
      if (!answers || answers.length >= MAX_ANSWERS) return;
      reads.set(identity, answers);
      const at = obs.exchange.startedAt ?? 0;
      const firstOfItsKind = !answers.some((a) => a.served === served);
      answers.push({ served, status: response.status, at, ...(firstOfItsKind ? { obs } : {}) });
    },
    finish() {
      const judgements: Judgement[] = [];
      for (const answers of reads.values()) {
        if (answers.length < 2) continue;
        judgements.push(verdictOf(answers.sort((a, b) => a.at - b.at)));
      }
      return judgements;
    },
  };
}

/** The first flip between answers near in time, or holds. */
function verdictOf(answers: Answered[]): Judgement {
  for (let i = 1; i < answers.length; i++) {
    const [before, after] = [answers[i - 1] as Answered, answers[i] as Answered];
    if (before.served === after.served || after.at - before.at > SAME_TIME_MS) continue;
    const obs = (after.obs ?? answers.find((a) => a.served === after.served)?.obs) as Observation;
    const owner = before.served;
    const what = owner
      ? 'a refusal was cached into a later read of a key that is served'
      : 'an answer was cached into a later read that is refused';
    const trick = familyOf('cache').find(
      (t) => (t.tried ?? FAMILIES.cache.tried) === (owner ? 'the owner' : 'no key'),
    );
    const seen = {
      family: 'cache' as const,
      label: trick?.name ?? 'a read made again',
      ...(trick ? { transform: trick } : {}),
    };
    return breaks(
      `${trickLine(seen)}: ${requestLine(obs)} with ${credentialLabel(obs.credential)}: ${before.status}, then ${after.status} when made again ${after.at - before.at} ms later: ${what}; reproduce: ${obs.exchange.request.curl}`,
      obs,
      undefined,
      owner ? 'API8:2023' : 'API2:2023',
    );
  }
  return holds(answers[0]?.obs);
}
