/**
 * Revalidation (§4, D-CACHE), on every live GET operation: the ETag an answer gave, sent back in
 * If-None-Match, gets 304 Not Modified, or the same 200 again (a deployment that does not
 * revalidate). A deployment that sends `no-store` and no ETag has nothing to revalidate, which is
 * conformant too. A live run asks each operation once more with the ETag its first answer gave
 * (a follow-up probe); a recording is judged on the revalidations it holds.
 */
import { createHash } from 'node:crypto';
import { describe, requestLine } from '../core/answers.ts';
import { entryKey, EvidenceTable } from '../core/evidence.ts';
import type { Observation } from '../core/observation.ts';
import { PRIMARY_KEY } from '../core/roles.ts';
import type { Across, Rule } from '../core/rule.ts';
import type { RuleState } from '../core/state.ts';
import { breaks, chose, holds } from '../core/rule.ts';
import type { Exchange, RequestSpec, ResponseData } from '../core/exchange.ts';
import { readsRecords } from './not-found.ts';
import { readOf } from './requests.ts';

const NOT_MODIFIED = 304;

/** The tags of an If-None-Match header, compared weakly (RFC 9110 §13.1.2): `W/` dropped. */
function tagsOf(value: string): string[] {
  return value
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .filter(Boolean);
}

const weak = (tag: string) => tag.trim().replace(/^W\//, '');

function ifNoneMatch(obs: Observation): string | undefined {
  return Object.entries(obs.exchange.request.headers).find(
    ([name]) => name.toLowerCase() === 'if-none-match',
  )?.[1];
}

/** A keyed GET of a live operation that reads the campaign's records, with its answer. */
function keyedRead(obs: Observation): ResponseData | undefined {
  const response = obs.exchange.response;
  if (!obs.op || obs.exchange.request.method !== 'GET' || !response) return undefined;
  return readsRecords(obs) ? response : undefined;
}

/** A short digest of a body: what the rule keeps of an answer to compare contents. */
const digestOf = (response: ResponseData) =>
  createHash('sha256').update(response.body).digest('base64url').slice(0, 22);

/** The same request again with the ETag its answer gave, or undefined when it gave none. */
export function revalidationOf(request: RequestSpec, answered: Exchange): RequestSpec | undefined {
  const tag = answered.response?.status === 200 ? answered.response.headers.etag : undefined;
  return tag ? { ...request, headers: { ...request.headers, 'If-None-Match': tag } } : undefined;
}

export const cachingRules: Rule[] = [
  {
    id: 'ENVELOPE-015',
    section: '§4',
    title: 'Revalidation: If-None-Match with the ETag an answer gave gets 304 or the same 200',
    area: 'envelope',
    level: 'advisory',
    decision: 'D-CACHE',
    mock: 'run',
    expected:
      'project decision: a strong ETag on every keyed answer, and 304 to If-None-Match with it (the same 200 again, or no-store without an ETag, is conformant)',
    hint: 'Send an ETag that changes only with the content, and answer If-None-Match with a matching tag with 304 (or the same 200).',
    plan(op, world) {
      const request = readOf(op, world, { key: PRIMARY_KEY }, 'full');
      return request ? [{ request, followUp: (answered) => revalidationOf(request, answered) }] : [];
    },
    judge(obs) {
      const response = keyedRead(obs);
      if (!response) return undefined;
      const sent = ifNoneMatch(obs);
      if (sent === undefined) {
        if (response.status !== 200 || response.headers.etag !== undefined) return undefined;
        return chose(`no ETag (Cache-Control: ${response.headers['cache-control'] ?? '(none)'})`, true, obs);
      }
      if (response.status === NOT_MODIFIED)
        return chose('304 Not Modified to If-None-Match with the ETag an answer gave', false, obs);
      if (response.status !== 200)
        return breaks(`${requestLine(obs)} with If-None-Match: answered ${describe(response)}`, obs);
      const etag = response.headers.etag;
      if (etag !== undefined && tagsOf(sent).includes(weak(etag))) {
        return chose('the same 200 again, with the ETag sent in If-None-Match (no revalidation)', true, obs);
      }
      // Another tag: the content changed since, or the tag did alone; `across` compares the contents.
      return undefined;
    },
    across: { judge: (ctx) => retaggedAcross(ctx.state) },
  },
];

/** The content an ETag was first given with: its digest, and the entry that gave it. */
interface Tagged {
  digest: string;
  seq: number;
}

/** A 200 to If-None-Match under another tag than the tags sent: what the rule keeps of it. */
interface Retagged {
  tags: string[];
  digest: string;
  line: string;
}

/** Retagged answers whose exchange is kept as evidence (the earliest). */
const MAX_EVIDENCE = 500;

/**
 * 200 answers to If-None-Match that carry another tag than the one sent, compared with the answer
 * that gave that tag: the same content under a new tag means the tag changes on its own, so
 * If-None-Match can never match. Keeps one digest per tag seen, and the rare retagged answers.
 */
function retaggedAcross(state: RuleState): Across {
  const digestOfTag = state.table<Tagged>('ENVELOPE-015 tags', (kept, other) =>
    other.seq < kept.seq ? other : kept,
  );
  const retagged = state.table<Retagged>('ENVELOPE-015 retagged', (kept) => kept);
  const evidence = new EvidenceTable(state, 'ENVELOPE-015 evidence', MAX_EVIDENCE);
  return {
    see(obs) {
      const response = keyedRead(obs);
      if (!response || response.status !== 200) return;
      const sent = ifNoneMatch(obs);
      const etag = response.headers.etag;
      if (sent === undefined) {
        if (etag !== undefined && digestOfTag.get(weak(etag)) === undefined)
          digestOfTag.set(weak(etag), { digest: digestOf(response), seq: obs.exchange.seq });
        return;
      }
      const tags = tagsOf(sent);
      if (etag !== undefined && tags.includes(weak(etag))) return;
      const key = entryKey(obs);
      retagged.set(key, { tags, digest: digestOf(response), line: requestLine(obs) });
      evidence.keep(key, obs);
    },
    *finish() {
      for (const [key, { tags, digest, line }] of retagged.entries()) {
        const earlier = tags.map((tag) => digestOfTag.get(tag)?.digest).find((known) => known !== undefined);
        if (earlier === undefined) continue;
        const obs = evidence.get(key);
        yield earlier === digest
          ? breaks(
              `${line}: the same content came back under another ETag (or none), so If-None-Match never matches`,
              obs,
            )
          : holds(obs);
      }
    },
  };
}
