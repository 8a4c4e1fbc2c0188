/**
 * Caches and order (§5.1: a key reads its own campaign; §5.5: a revoked key stops working): the
 * same request with the same credentials, answered twice within a minute, is served both times or
 * refused both times (a 404 or a 429 is neither). A cache keyed by less than the credentials shows as a flip: the owner's read
 * made again after other keys' requests comes back refused (a refusal cached for the URL), or a
 * request without a key comes back served (the owner's answer cached for the URL). A live run makes
 * the owner's read and a keyless one again after every other request (phase 3); a recording is
 * judged on the reads it repeats. Per request the rule keeps a few statuses and times, never a body,
 * in a table of the run's state: a recording judged in shards and merged gets the verdicts it gets
 * judged whole.
 */
import { isSuccess, requestLine } from '../../core/answers.ts';
import type { Credential } from '../../core/credentials.ts';
import { credentialLabel } from '../../core/credentials.ts';
import { EvidenceTable } from '../../core/evidence.ts';
import type { Evidence, Observation } from '../../core/observation.ts';
import type { Across, Judgement } from '../../core/rule.ts';
import { breaks, holds } from '../../core/rule.ts';
import type { RuleState } from '../../core/state.ts';
import { FAMILIES, familyOf } from './catalogue.ts';
import { trickLine } from './verdicts.ts';

/** Answers closer in time than this see the same data and the same keys. */
const SAME_TIME_MS = 60_000;
/** Answers kept per request: its earliest. */
const MAX_ANSWERS = 8;
/** Requests whose first served and first refused answers are kept as evidence (a recording's earliest). */
const MAX_EVIDENCE = 2000;

/** One answer to a request, by its entry number (a live run's request number). */
interface Answered {
  served: boolean;
  status: number;
  at: number;
  seq: number;
}

/** The earliest answers of two lists kept apart: what judging them together keeps. */
const earliest = (kept: Answered[], other: Answered[]): Answered[] =>
  [...kept, ...other].sort((a, b) => a.seq - b.seq).slice(0, MAX_ANSWERS);

/**
 * Who asked, in words a cache could key on: the credentials and the header they came in. A key the
 * run does not know may be created or revoked between two reads: it is not compared.
 */
function askerOf(credential: Credential): string | undefined {
  const compared = ['none', 'key', 'made-up', 'near-miss', 'malformed'];
  return compared.includes(credential.kind) ? credentialLabel(credential) : undefined;
}

/** The request and its asker: what the same read made again shares. */
type Identity = [method: string, target: string, headers: (readonly [string, string])[], asker: string];

function identityOf(obs: Observation, asker: string): string {
  const headers = Object.entries(obs.exchange.request.headers)
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .filter(([name]) =>
      ['accept', 'accept-encoding', 'if-none-match', 'if-modified-since', 'prefer', 'range'].includes(name),
    )
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([obs.exchange.request.method, obs.target, headers, asker] satisfies Identity);
}

/**
 * Served (2xx) or refused (any other 4xx). A 429 says nothing of a cache, nor does a 404: an item
 * deleted between two reads is not found the second time, and that is no cache's doing.
 */
function servedOf(status: number): boolean | undefined {
  if (isSuccess(status)) return true;
  return status >= 400 && status <= 499 && status !== 404 && status !== 429 ? false : undefined;
}

/**
 * Per request and asker, its earliest answers (never a body), in a table of the run's state; and
 * the first served and the first refused exchange of each, as evidence.
 */
export function cacheAcross(state: RuleState, source: Evidence['source']): Across {
  const reads = state.table<Answered[]>('AUTH-022 reads', earliest);
  const evidence = new EvidenceTable(state, 'AUTH-022 evidence', MAX_EVIDENCE);
  return {
    see(obs) {
      const response = obs.exchange.response;
      if (!obs.op?.live || !obs.op.secured || !response) return;
      const asker = askerOf(obs.credential);
      const served = servedOf(response.status);
      if (asker === undefined || served === undefined) return;
      const identity = identityOf(obs, asker);
      const answers = reads.get(identity) ?? [];
      const seq = obs.exchange.seq;
      if (answers.length >= MAX_ANSWERS && answers.every((a) => a.seq < seq)) return;
      const answer = { served, status: response.status, at: obs.exchange.startedAt ?? 0, seq };
      reads.set(identity, earliest(answers, [answer]));
      evidence.keep(`${identity} ${served}`, obs);
    },
    finish() {
      const judgements: Judgement[] = [];
      for (const [identity, answers] of reads.entries()) {
        if (answers.length < 2) continue;
        const shown = (answer: Answered) => evidence.get(`${identity} ${answer.served}`);
        judgements.push(
          verdictOf(
            identity,
            [...answers].sort((a, b) => a.at - b.at),
            shown,
            source,
          ),
        );
      }
      return judgements;
    },
  };
}

/** The first flip between answers near in time, or holds. */
function verdictOf(
  identity: string,
  answers: Answered[],
  shown: (answer: Answered) => Evidence | undefined,
  source: Evidence['source'],
): Judgement {
  for (let i = 1; i < answers.length; i++) {
    const [before, after] = [answers[i - 1] as Answered, answers[i] as Answered];
    if (before.served === after.served || after.at - before.at > SAME_TIME_MS) continue;
    const evidence = shown(after);
    const [method, target, , asker] = JSON.parse(identity) as Identity;
    const line = evidence
      ? requestLine(evidence)
      : `${source === 'traffic' ? `#${after.seq} ` : ''}${method} ${target}`;
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
      `${trickLine(seen)}: ${line} with ${asker}: ${before.status}, then ${after.status} when made again ${after.at - before.at} ms later: ${what}${evidence ? `; reproduce: ${evidence.exchange.request.curl}` : ''}`,
      evidence,
      undefined,
      owner ? 'API8:2023' : 'API2:2023',
    );
  }
  const first = answers[0];
  return holds(first && shown(first));
}
