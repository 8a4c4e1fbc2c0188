/**
 * Envelopes (§4.1, §7), the JSON rule (§4) and the answer's manners (caching, CORS, hygiene,
 * compression), judged on every answer of every operation, whichever rule asked for it.
 */
import { isObject } from '../../spec/json-value.ts';
import { describe, errorEnvelopeProblem, isSuccess, requestLine } from '../core/answers.ts';
import type { Evidence, Observation } from '../core/observation.ts';
import { hasBody, jsonOf } from '../core/observation.ts';
import { PRIMARY_KEY } from '../core/roles.ts';
import type { Across, Judgement, Rule } from '../core/rule.ts';
import { breaks, chose, holds, unjudged } from '../core/rule.ts';
import { earlier, entryKey, evidenceOf } from '../core/evidence.ts';
import { type RuleState, sum } from '../core/state.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import type { FailureKind, ResponseData } from '../core/exchange.ts';
import { collectionRequest, isPlannedPath } from './requests.ts';
import { notAList } from './pages.ts';
import { validationOf } from '../core/drift-analysis.ts';
import { type Pinned, pinnedDifference, pinnedOf } from './pinned.ts';

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/;

/** An answer that carries a body to judge: not HEAD, 204 or 304, not a redirect, and recorded whole. */
function bodyOf(obs: Observation): ResponseData | undefined {
  const response = obs.exchange.response;
  if (!response || obs.bodyless || !hasBody(obs.exchange.request.method, response)) return undefined;
  if (response.status >= 300 && response.status <= 399) return undefined;
  return response;
}

const at = (obs: Observation, problem: string) => `${requestLine(obs)}: ${problem}`;

/** The request asked for no coding: it named none, or only identity. */
function askedIdentity(obs: Observation): boolean {
  const asked = Object.entries(obs.exchange.request.headers).find(
    ([name]) => name.toLowerCase() === 'accept-encoding',
  );
  return asked === undefined || asked[1].trim().toLowerCase() === 'identity';
}

function header(obs: Observation, name: string): string | undefined {
  return Object.entries(obs.exchange.request.headers).find(([n]) => n.toLowerCase() === name)?.[1];
}

/** A live operation's request with the primary key and some headers: a collection's smallest page, a real item. */
function primaryWith(
  op: OperationModel,
  world: Parameters<NonNullable<Rule['plan']>>[1],
  headers: Record<string, string>,
) {
  const request =
    op.kind === 'collection'
      ? collectionRequest(op, world, { key: PRIMARY_KEY, headers })
      : world.request(op, { key: PRIMARY_KEY, headers });
  return request ? [{ request }] : [];
}

export const envelopeRules: Rule[] = [
  {
    id: 'ENVELOPE-001',
    section: '§4.1',
    title: 'Every success answer is the envelope { ok: true, data }',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    expected: 'every 2xx answer is {"ok":true,"data":...}',
    hint: 'Wrap every 2xx body as {"ok":true,"data":...}.',
    judge(obs) {
      const response = bodyOf(obs);
      if (!response || !isSuccess(response.status)) return undefined;
      const body = response.json;
      if (!isObject(body) || body.ok !== true || !('data' in body)) {
        return breaks(at(obs, `not {ok:true,data}: ${describe(response)}`), obs);
      }
      return holds(obs);
    },
  },
  {
    id: 'ENVELOPE-002',
    section: '§4.1',
    title: 'List answers carry meta.count equal to the number of items returned',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    expected: 'meta.count equals data.length',
    hint: 'Set meta.count to data.length on every list answer.',
    judge(obs) {
      const response = bodyOf(obs);
      if (!response || response.status !== 200 || obs.op?.kind !== 'collection' || !obs.op.counted)
        return undefined;
      const body = response.json;
      if (!isObject(body) || !Array.isArray(body.data))
        return notAList(obs) ?? breaks(at(obs, 'data is not an array'), obs);
      const count = isObject(body.meta) ? body.meta.count : undefined;
      return count === body.data.length
        ? holds(obs)
        : breaks(
            at(obs, `meta.count is ${JSON.stringify(count)} but data has ${body.data.length} items`),
            obs,
          );
    },
  },
  {
    id: 'ENVELOPE-003',
    section: '§7',
    title: 'Every error answer is the envelope { ok: false, error: { code, message } }',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    expected: 'every 4xx body is {"ok":false,"error":{"code","message"}}',
    hint: 'Answer every 4xx with {"ok":false,"error":{"code":"...","message":"..."}}, including the framework’s own errors (404 pages, 405, parser errors).',
    judge(obs, ctx) {
      const response = bodyOf(obs);
      if (!response || response.status < 400 || (!obs.op && !obs.inApi)) return undefined;
      const problem = errorEnvelopeProblem(ctx.spec, response);
      return problem ? breaks(at(obs, `${response.status}: ${problem}`), obs) : holds(obs);
    },
  },
  {
    id: 'ENVELOPE-004',
    section: '§4',
    title: 'Every answer is JSON (a JSON content type and a body that parses)',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    about: 'every answer',
    expected: 'a JSON content type and a JSON body',
    hint: 'Send Content-Type: application/json and a JSON body on every answer, errors included.',
    judge(obs) {
      if (obs.answer !== 'usable' && obs.answer !== 'not-json') return undefined;
      if (!obs.op && !obs.inApi) return undefined;
      const response = bodyOf(obs);
      if (!response) return undefined;
      const { mediaType, contentType, jsonError, body } = response;
      if (!mediaType || !JSON_MEDIA.test(mediaType))
        return breaks(at(obs, `content type ${contentType ?? '(none)'}, not JSON`), obs);
      if (jsonError) return breaks(at(obs, `the body is ${jsonError}`), obs);
      if (body.trim() === '') return breaks(at(obs, 'empty body'), obs);
      return holds(obs);
    },
  },
  {
    id: 'ENVELOPE-005',
    section: '§2, §4.1',
    title: 'Every body of a documented operation matches the spec',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    expected: "bodies valid against the spec's schemas",
    hint: 'Return exactly the shapes the spec documents (types, required fields, enums, formats).',
    judge(obs, ctx) {
      const response = bodyOf(obs);
      const op = obs.op;
      if (!response || !op || response.json === undefined) return undefined;
      const { status } = response;
      // An undocumented error status is drift's (DRIFT-002); its envelope, ENVELOPE-003's.
      if (!op.statuses.includes(String(status)) && status >= 400) return undefined;
      // The validation the drift analysis makes of the same answer: each answer is validated once.
      const result = validationOf(obs.exchange, op.operationId, ctx.spec)?.open;
      if (!result) return undefined;
      return result.valid
        ? holds(obs)
        : breaks(at(obs, `${status}: ${result.errors.slice(0, 3).join('; ')}`), obs);
    },
  },
  {
    id: 'ENVELOPE-006',
    section: '§4',
    title: 'The answer is JSON whatever the Accept header asks for',
    area: 'envelope',
    level: 'required',
    decision: 'D-CONTENT',
    mock: { skip: 'the mock negotiates content itself (406 problem+json for Accept: application/xml)' },
    // The rule about this very answer: whatever came back, it is judged here, not by ENVELOPE-004.
    about: 'answers to its requests',
    expected: 'Accept: application/xml still gets a JSON answer (any status)',
    hint: 'Answer application/json even when Accept asks for another type (or refuse in the JSON error envelope).',
    plan: (op, world) => primaryWith(op, world, { Accept: 'application/xml' }),
    judge(obs) {
      if (!obs.op || header(obs, 'accept') !== 'application/xml') return undefined;
      if (obs.answer === 'server-error' || obs.answer === 'undecodable') return undefined;
      const response = bodyOf(obs);
      if (!response) return undefined;
      const json =
        response.mediaType !== undefined && JSON_MEDIA.test(response.mediaType) && !response.jsonError;
      return json ? holds(obs) : breaks(at(obs, `answered ${describe(response)}`), obs);
    },
  },
  {
    id: 'ENVELOPE-007',
    section: '§5.7',
    title: 'Keyed answers are kept out of shared caches (Cache-Control)',
    area: 'envelope',
    level: 'advisory',
    mock: 'run',
    decision: 'D-CACHE',
    expected:
      'project decision: Cache-Control: private, no-cache; Vary: Authorization, x-api-key, Accept-Encoding',
    hint: 'Send Cache-Control: private, no-cache (or no-store) on keyed answers.',
    judge(obs) {
      const response = obs.exchange.response;
      if (!obs.op || !response || response.status !== 200 || obs.credential.kind !== 'key') return undefined;
      const value = response.headers['cache-control'];
      const directives = (value ?? '').toLowerCase();
      return chose(
        `Cache-Control: ${value ?? '(none)'}; Vary: ${response.headers.vary ?? '(none)'}`,
        !directives.includes('private') || !directives.includes('no-cache'),
        obs,
      );
    },
  },
  {
    id: 'ENVELOPE-008',
    section: '§5.7',
    title: 'No CORS grants (keys are for servers only)',
    area: 'envelope',
    level: 'advisory',
    mock: 'run',
    decision: 'D-CORS',
    expected: 'project decision: no CORS headers on any answer',
    hint: 'Do not send Access-Control-Allow-* headers: a browser must not be able to use a key.',
    plan: (op, world) => primaryWith(op, world, { Origin: 'https://example.org' }),
    judge(obs) {
      const response = obs.exchange.response;
      if (!obs.op || !response || header(obs, 'origin') === undefined) return undefined;
      const grant = response.headers['access-control-allow-origin'];
      return chose(
        grant === undefined ? 'no Access-Control-Allow-Origin' : `Access-Control-Allow-Origin: ${grant}`,
        grant !== undefined,
        obs,
      );
    },
  },
  {
    id: 'ENVELOPE-009',
    section: '§4',
    title: 'Hygiene headers: X-Content-Type-Options and a request id',
    area: 'envelope',
    level: 'advisory',
    mock: 'run',
    decision: 'D-HEADERS',
    expected: 'project decision: X-Content-Type-Options: nosniff and X-Request-Id',
    hint: 'Send X-Content-Type-Options: nosniff and an X-Request-Id on every answer.',
    judge(obs) {
      const response = obs.exchange.response;
      if (!obs.op || !response || response.status !== 200) return undefined;
      const h = response.headers;
      const nosniff = h['x-content-type-options'];
      return chose(
        `X-Content-Type-Options: ${nosniff ?? '(none)'}; X-Request-Id: ${h['x-request-id'] ? 'present' : '(none)'}`,
        nosniff?.toLowerCase() !== 'nosniff' || !h['x-request-id'],
        obs,
      );
    },
  },
  {
    id: 'ENVELOPE-010',
    section: '§4',
    title: 'Compression: what a client asking for gzip gets (coding, size, Vary, same content)',
    area: 'envelope',
    level: 'advisory',
    mock: 'run',
    decision: 'D-COMPRESSION',
    expected:
      'project decision: gzip for success bodies of 1 KiB or more when Accept-Encoding asks for it, Vary naming Accept-Encoding, the same JSON as the identity answer (no compression is conformant too)',
    hint: 'Optional: send success bodies of 1 KiB or more gzip-encoded when Accept-Encoding asks for gzip, name Accept-Encoding in Vary, and give the gzip answer its own strong ETag.',
    // A collection's largest page: the answer worth compressing (a list of 200 walks is some 115 KB).
    appliesTo: (op) => op.live && op.method === 'GET' && op.kind === 'collection',
    plan(op, world) {
      const gzip = collectionRequest(
        op,
        world,
        { key: PRIMARY_KEY, headers: { 'Accept-Encoding': 'gzip' } },
        'full',
      );
      const plain = collectionRequest(op, world, { key: PRIMARY_KEY }, 'full');
      return [gzip, plain].flatMap((request) => (request ? [{ request }] : []));
    },
    across: { judge: (ctx) => compressionAcross(ctx.spec) },
  },
  {
    id: 'ENVELOPE-011',
    section: '§4, §7',
    title: 'No request meets a server error or an HTML error page',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    about: 'every attempt',
    expected: 'a non-5xx, non-HTML answer to every request',
    hint: 'Every request must get a JSON answer: a 5xx or a proxy’s HTML page on any request is a fault a client meets, even if a retry would succeed.',
    judge(obs, ctx) {
      const response = obs.exchange.response;
      if (!response || (!obs.op && !obs.inApi)) return undefined;
      if (obs.answer === 'server-error') {
        // Not Implemented is a fitting answer from an endpoint that is planned, not active (§4.4).
        if (response.status === 501 && isPlannedPath(ctx.spec, obs.path)) return holds(obs);
        return breaks(at(obs, `answered ${describe(response)}`), obs);
      }
      if (obs.answer === 'html') return breaks(at(obs, `an HTML page: ${describe(response)}`), obs);
      return holds(obs);
    },
  },
  {
    id: 'ENVELOPE-012',
    section: '§4',
    title: 'An answer that declares a Content-Encoding decodes from it',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    about: 'answers to its requests',
    expected: 'every content-coded body decodes',
    hint: 'Send Content-Encoding only for a body actually coded that way (gzip, deflate or br), and never a coding clients cannot decode.',
    judge(obs) {
      if (obs.answer === 'undecodable')
        return breaks(at(obs, obs.failure?.message ?? 'the body does not decode'), obs);
      return obs.exchange.response?.encoded ? holds(obs) : undefined;
    },
  },
  {
    id: 'ENVELOPE-013',
    section: '§4',
    title: 'Compression of answers to requests that asked for identity (the spec is silent)',
    area: 'envelope',
    level: 'advisory',
    mock: 'run',
    decision: 'D-COMPRESSION',
    expected: 'project decision: identity answers when the request asks for identity',
    hint: 'A request saying Accept-Encoding: identity should get an uncompressed answer (RFC 9110 §12.5.3); clients that decode anyway still read it.',
    across: {
      judge: () => {
        let asked = 0;
        let coded = 0;
        const codings = new Set<string>();
        let example: Observation | undefined;
        return {
          see(obs) {
            const response = obs.exchange.response;
            if (!obs.op || !response || !askedIdentity(obs) || obs.source === 'traffic') return;
            asked++;
            example ??= obs;
            if (!response.encoded) return;
            coded++;
            codings.add(response.encoded.coding);
            example = coded === 1 ? obs : example;
          },
          finish() {
            if (asked === 0) return [];
            return [
              coded === 0
                ? chose(`all ${asked} answers came uncoded`, false, example)
                : chose(
                    `${coded} of ${asked} answers came coded (${[...codings].join(', ')}) although the request asked for identity; the suite decoded and judged them`,
                    true,
                    example,
                  ),
            ];
          },
        };
      },
    },
  },
  {
    id: 'ENVELOPE-016',
    section: '§4',
    title: 'Every answer arrives whole: no reset, no body short of its Content-Length, no broken framing',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    unit: 'requests',
    expected: 'every request gets a whole answer: its status, headers and the body they declare',
    hint: 'Find what cuts answers on the way (a gateway’s body size limit, a proxy’s buffer, a worker that dies mid-answer): a client cannot read an answer that is reset, shorter than its Content-Length, or badly chunked.',
    across: { judge: (ctx) => wholeAnswersAcross(ctx.state), seesLost: true },
  },
];

/** Failures that show the target cut an answer: a reset before it, or a break in it (`client.ts`). */
const CUT_KINDS: ReadonlySet<FailureKind> = new Set(['cut', 'reset', 'protocol']);

/**
 * ENVELOPE-016: every request whose answer was cut fails, with what it declared and what arrived,
 * as long as the target answered other requests whole; a target that never answered whole, or
 * that stopped answering (the client gave up), leaves the cuts unjudged: they may be its going down.
 */
function wholeAnswersAcross(state: RuleState): Across {
  const cuts = state.table<Evidence>('ENVELOPE-016 cuts', earlier);
  const counts = state.table<number>('ENVELOPE-016 counts', sum);
  const add = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  return {
    see(obs) {
      if (obs.private) return;
      if (obs.answer !== 'lost') return add('whole');
      const kind = obs.failure?.kind;
      if (kind === 'gave-up') return add('gone');
      if (kind === undefined || !CUT_KINDS.has(kind)) return;
      add('cut');
      cuts.set(entryKey(obs), evidenceOf(obs));
    },
    *finish() {
      const whole = counts.get('whole') ?? 0;
      const cut = counts.get('cut') ?? 0;
      if (cut > 0 && (whole === 0 || (counts.get('gone') ?? 0) > 0)) {
        const why =
          whole === 0
            ? 'the target answered no request whole'
            : 'the target stopped answering afterwards, which may be what cut it';
        yield unjudged(`${cut} answers arrived cut, and ${why}`);
        return;
      }
      for (let i = 0; i < whole; i++) yield holds();
      for (const [, obs] of cuts.entries()) {
        yield breaks(`${requestLine(obs)}: ${obs.exchange.error?.message ?? 'the answer was cut'}`, obs);
      }
    },
  };
}

const GZIP_CONTENT_HINT =
  'A gzip answer must decode to exactly the JSON the identity answer carries: compress the same body you would send uncompressed.';

/** Pairs each answer to `Accept-Encoding: gzip` with the identity answer to the same request. */
function compressionAcross(spec: SpecModel): Across {
  const gzip = new Map<string, Observation>();
  const identity = new Map<string, { response: ResponseData; pinned: Pinned }>();
  const keyOf = (obs: Observation) => `${obs.exchange.request.url} ${JSON.stringify(obs.credential)}`;
  return {
    see(obs) {
      if (!obs.op || obs.source === 'traffic') return;
      const asked = header(obs, 'accept-encoding');
      if (asked === 'gzip') gzip.set(keyOf(obs), obs);
      else if (askedIdentity(obs) && obs.exchange.response && jsonOf(obs) !== undefined)
        identity.set(keyOf(obs), { response: obs.exchange.response, pinned: pinnedOf(spec, obs) });
    },
    finish() {
      const judgements: Judgement[] = [];
      for (const [key, obs] of gzip) {
        const response = obs.exchange.response;
        if (!response) continue;
        if (response.status !== 200) {
          judgements.push(chose(`Accept-Encoding: gzip got ${describe(response)}`, true, obs));
          continue;
        }
        const report = compressionReport(response, identity.get(key), () => pinnedOf(spec, obs));
        judgements.push(
          report.sameContent
            ? chose(report.actual, response.encoded?.coding !== 'gzip', obs)
            : { verdict: 'chose', choice: report.actual, differs: true, obs, hint: GZIP_CONTENT_HINT },
        );
      }
      return judgements;
    },
  };
}

/**
 * What an answer to `Accept-Encoding: gzip` shows against the identity answer to the same request:
 * the coding and sizes, whether the decoded content is the same JSON, whether `Vary` names
 * Accept-Encoding, and whether the two codings carry different entity tags (RFC 9110 §8.8.3).
 */
function compressionReport(
  answer: ResponseData,
  plain: { response: ResponseData; pinned: Pinned } | undefined,
  pinned: () => Pinned,
): { actual: string; sameContent: boolean } {
  const identity = plain?.response;
  const parts: string[] = [];
  let sameContent = true;
  if (answer.encoded) {
    const ratio = identity?.bytes ? ` (${Math.round((100 * answer.encoded.bytes) / identity.bytes)}%)` : '';
    parts.push(
      `${answer.encoded.coding}: ${answer.encoded.bytes} bytes for ${identity ? `${identity.bytes} identity bytes${ratio}` : `${answer.bytes} decoded bytes`}`,
    );
    // The same content is what the spec pins of it (`pinned.ts`): a request id, a timestamp, or
    // which tied items a full page holds differ by right.
    sameContent =
      answer.json !== undefined &&
      plain !== undefined &&
      identity?.json !== undefined &&
      pinnedDifference(pinned(), plain.pinned) === undefined;
    parts.push(
      answer.json === undefined
        ? `the decoded body is ${answer.jsonError ?? 'empty'}`
        : identity?.json === undefined
          ? 'no identity answer to compare the decoded body with'
          : sameContent
            ? 'the decoded body equals the identity answer'
            : 'the decoded body differs from the identity answer',
    );
  } else {
    parts.push(`identity (not compressed): ${answer.bytes} bytes`);
  }
  const vary = answer.headers.vary;
  const names = (vary ?? '')
    .split(',')
    .some((v) => ['accept-encoding', '*'].includes(v.trim().toLowerCase()));
  parts.push(`Vary: ${vary ?? '(none)'} (${names ? 'names' : 'does not name'} Accept-Encoding)`);
  if (answer.encoded && answer.headers.etag !== undefined) {
    parts.push(
      answer.headers.etag === identity?.headers.etag
        ? "the same ETag as the identity answer's"
        : 'an ETag of its own',
    );
  }
  return { actual: parts.join('; '), sameContent };
}
