/**
 * Envelopes (§4.1, §7) and the JSON rule (§4), judged over every answer the run received: each
 * check looks at the whole traffic, so one bad answer anywhere is found, whichever check asked.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Exchange, ResponseData } from '../types.ts';
import { isFinal } from '../types.ts';
import { FULL_LIMIT } from '../shared-fetches.ts';
import { PRIMARY } from '../key-uses.ts';
import type { Check, CheckContext } from './check.ts';
import { isPlannedUrl } from './planned.ts';
import {
  advisory,
  counted,
  describe,
  errorEnvelopeProblem,
  inconclusive,
  noAnswer,
  verdict,
} from './outcome.ts';

type Answered = Exchange & { response: ResponseData };

function answered(ctx: CheckContext): Answered[] {
  return ctx.client.exchanges.filter((e): e is Answered => e.response !== undefined && isFinal(e));
}

/**
 * Answers that carry a body to judge: not HEAD, not 204, not a redirect (3xx, 304 included). A
 * redirect is a legal answer to another spelling of a path (AUTH-015); on a live path the checks
 * that expect its data fail it.
 */
function withBody(ctx: CheckContext): Answered[] {
  return answered(ctx).filter(
    (e) =>
      e.request.method !== 'HEAD' &&
      e.response.status !== 204 &&
      (e.response.status < 300 || e.response.status > 399),
  );
}

const where = (e: Exchange) => `${e.request.method} ${e.request.url}`;

/** A traffic verdict: the first offending exchange is the evidence. */
function judge(
  expected: string,
  findings: { exchange: Exchange; problem: string }[],
  judged: number,
): ReturnType<typeof verdict> {
  if (judged === 0) return inconclusive(expected, 'no answer of this kind was received');
  return counted(
    verdict(
      expected,
      findings.map((f) => `${where(f.exchange)}: ${f.problem}`),
      `all ${judged} answers hold`,
      findings[0]?.exchange,
    ),
    { requests: judged, records: judged, unit: 'answers' },
  );
}

/** Failures that are the target's doing; a spent budget, a given-up run and a bad coding are judged elsewhere. */
// A TLS failure after the pre-flight's handshake succeeded is the target's; a proxy failing mid-run
// is the tester's own network, never blamed on the API.
const FAULT_KINDS = new Set(['timeout', 'reset', 'protocol', 'network', 'refused', 'connect', 'dns', 'tls']);
const HTML_MEDIA = /^(?:text\/html|application\/xhtml\+xml)$/;

/**
 * Why an exchange shows a fault of the target (5xx, cut connection, HTML page), or undefined. A 501
 * from a planned endpoint (§4.4, not active) is no fault: Not Implemented is a fitting answer.
 */
function faultOf(exchange: Exchange, baseUrl: string): string | undefined {
  const { response, error } = exchange;
  if (error && FAULT_KINDS.has(error.kind)) return `${error.kind}: ${error.message}`;
  if (!response) return undefined;
  const notActive = response.status === 501 && isPlannedUrl(baseUrl, exchange.request.url);
  if (response.status >= 500 && !notActive) return `answered ${describe(response)}`;
  if (response.mediaType !== undefined && HTML_MEDIA.test(response.mediaType))
    return `an HTML page: ${describe(response)}`;
  return undefined;
}

/** The request asked for no coding: it named none, or only identity. */
const askedIdentity = (exchange: Exchange) => {
  const asked = Object.entries(exchange.request.headers).find(
    ([name]) => name.toLowerCase() === 'accept-encoding',
  );
  return asked === undefined || asked[1].trim().toLowerCase() === 'identity';
};

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/;

export const envelopeChecks: Check[] = [
  {
    id: 'ENVELOPE-001',
    section: '§4.1',
    title: 'Every success answer is the envelope { ok: true, data }',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Wrap every 2xx body as {"ok":true,"data":...}.',
    async run(ctx) {
      const successes = withBody(ctx).filter((e) => e.response.status >= 200 && e.response.status < 300);
      const findings = successes.flatMap((exchange) => {
        const body = exchange.response.json as { ok?: unknown; data?: unknown } | undefined;
        if (exchange.response.jsonError)
          return [{ exchange, problem: `the body is ${exchange.response.jsonError}` }];
        if (typeof body !== 'object' || body === null || body.ok !== true || !('data' in body)) {
          return [{ exchange, problem: `not {ok:true,data}: ${describe(exchange.response)}` }];
        }
        return [];
      });
      return judge('every 2xx answer is {"ok":true,"data":...}', findings, successes.length);
    },
  },
  {
    id: 'ENVELOPE-002',
    section: '§4.1',
    title: 'List answers carry meta.count equal to the number of items returned',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Set meta.count to data.length on every list answer.',
    async run(ctx) {
      const lists = withBody(ctx).filter(
        (e) => ctx.operations.operationOf(e)?.operationId === 'listWalks' && e.response.status === 200,
      );
      const findings = lists.flatMap((exchange) => {
        const body = exchange.response.json as { data?: unknown; meta?: { count?: unknown } } | undefined;
        if (!Array.isArray(body?.data)) return [{ exchange, problem: 'data is not an array' }];
        const count = body.meta?.count;
        return count === body.data.length
          ? []
          : [
              {
                exchange,
                problem: `meta.count is ${JSON.stringify(count)} but data has ${body.data.length} items`,
              },
            ];
      });
      return judge('meta.count equals data.length', findings, lists.length);
    },
  },
  {
    id: 'ENVELOPE-003',
    section: '§7',
    title: 'Every error answer is the envelope { ok: false, error: { code, message } }',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Answer every 4xx and 5xx with {"ok":false,"error":{"code":"...","message":"..."}}, including the framework’s own errors (404 pages, 405, parser errors).',
    async run(ctx) {
      const errors = withBody(ctx).filter((e) => e.response.status >= 400);
      const findings = errors.flatMap((exchange) => {
        const problem = errorEnvelopeProblem(ctx, exchange.response);
        return problem ? [{ exchange, problem: `${exchange.response.status}: ${problem}` }] : [];
      });
      return judge('every 4xx/5xx body is {"ok":false,"error":{"code","message"}}', findings, errors.length);
    },
  },
  {
    id: 'ENVELOPE-004',
    section: '§4',
    title: 'Every answer is JSON (a JSON content type and a body that parses)',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Send Content-Type: application/json and a JSON body on every answer, errors included.',
    async run(ctx) {
      const bodies = withBody(ctx);
      const findings = bodies.flatMap((exchange) => {
        const { mediaType, contentType, jsonError, body } = exchange.response;
        if (!mediaType || !JSON_MEDIA.test(mediaType)) {
          return [{ exchange, problem: `content type ${contentType ?? '(none)'}, not JSON` }];
        }
        if (jsonError) return [{ exchange, problem: `the body is ${jsonError}` }];
        if (body.trim() === '') return [{ exchange, problem: 'empty body' }];
        return [];
      });
      return judge('a JSON content type and a JSON body', findings, bodies.length);
    },
  },
  {
    id: 'ENVELOPE-005',
    section: '§2, §4.1',
    title: 'Every body of a documented operation matches spec/openapi.yaml',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Return exactly the shapes spec/openapi.yaml documents (types, required fields, enums, formats).',
    async run(ctx) {
      const documented = withBody(ctx).filter(
        (e) => ctx.operations.operationOf(e) && e.response.json !== undefined,
      );
      const findings = documented.flatMap((exchange) => {
        const operation = ctx.operations.operationOf(exchange);
        if (!operation) return [];
        const { status, json } = exchange.response;
        const result = ctx.contract.documentsStatus(operation.operationId, status)
          ? ctx.contract.validateResponse(operation.operationId, status, json)
          : status >= 400
            ? ctx.contract.validateSchema('ErrorEnvelope', json)
            : ctx.contract.validateResponse(operation.operationId, 200, json);
        return result.valid
          ? []
          : [{ exchange, problem: `${status}: ${result.errors.slice(0, 3).join('; ')}` }];
      });
      return judge(`bodies valid against the spec's schemas`, findings, documented.length);
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
    hint: 'Answer application/json even when Accept asks for another type (or refuse in the JSON error envelope).',
    async run(ctx) {
      const expected = 'Accept: application/xml still gets a JSON answer (any status)';
      const { exchange } = await ctx.data.list('limit=1', PRIMARY, { Accept: 'application/xml' });
      const missing = noAnswer(expected, exchange);
      if (missing) return missing;
      const response = exchange.response as ResponseData;
      const json =
        response.mediaType !== undefined && JSON_MEDIA.test(response.mediaType) && !response.jsonError;
      return verdict(
        expected,
        json ? [] : [`answered ${describe(response)}`],
        `${response.status} ${response.mediaType}`,
        exchange,
      );
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
    hint: 'Send Cache-Control: private, no-cache (or no-store) on keyed answers.',
    async run(ctx) {
      const { exchange } = await ctx.data.list('limit=1');
      if (!exchange.response)
        return inconclusive('Cache-Control: private or no-store', 'no answer', exchange);
      const value = exchange.response.headers['cache-control'];
      const directives = (value ?? '').toLowerCase();
      return advisory(
        'project decision: Cache-Control: private, no-cache; Vary: Authorization, x-api-key, Accept-Encoding',
        `Cache-Control: ${value ?? '(none)'}; Vary: ${exchange.response.headers.vary ?? '(none)'}`,
        exchange,
        { differs: !directives.includes('private') || !directives.includes('no-cache') },
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
    hint: 'Optional: send success bodies of 1 KiB or more gzip-encoded when Accept-Encoding asks for gzip, name Accept-Encoding in Vary, and give the gzip answer its own strong ETag.',
    async run(ctx) {
      const expected =
        'project decision: gzip for success bodies of 1 KiB or more when Accept-Encoding asks for it, Vary naming Accept-Encoding, the same JSON as the identity answer (no compression is conformant too)';
      const { exchange } = await ctx.data.list(FULL_LIMIT, PRIMARY, {
        'Accept-Encoding': 'gzip',
      });
      if (!exchange.response) {
        const error = exchange.error ?? { kind: 'network', message: 'no answer' };
        const actual = `no usable answer to Accept-Encoding: gzip: ${error.message}`;
        // Garbage or a bomb under a gzip label is what the deployment does; a timeout or a spent budget shows nothing.
        return error.kind === 'protocol' || error.kind === 'too-large' || error.kind === 'undecodable'
          ? advisory(expected, actual, exchange, { hint: GZIP_CONTENT_HINT })
          : inconclusive(expected, actual, exchange);
      }
      if (exchange.response.status !== 200) {
        return advisory(expected, `Accept-Encoding: gzip got ${describe(exchange.response)}`, exchange);
      }
      const identity = (await ctx.data.list200()).exchange.response;
      const report = compressionReport(exchange.response, identity);
      const differs = exchange.response.encoded?.coding !== 'gzip';
      return advisory(
        expected,
        report.actual,
        exchange,
        report.sameContent ? { differs } : { hint: GZIP_CONTENT_HINT, differs },
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
    hint: 'Do not send Access-Control-Allow-* headers: a browser must not be able to use a key.',
    async run(ctx) {
      const { exchange } = await ctx.data.list('limit=1', PRIMARY, { Origin: 'https://example.org' });
      if (!exchange.response) return inconclusive('no Access-Control-Allow-Origin', 'no answer', exchange);
      const grant = exchange.response.headers['access-control-allow-origin'];
      return advisory(
        'project decision: no CORS headers on any answer',
        grant === undefined ? 'no Access-Control-Allow-Origin' : `Access-Control-Allow-Origin: ${grant}`,
        exchange,
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
    hint: 'Send X-Content-Type-Options: nosniff and an X-Request-Id on every answer.',
    async run(ctx) {
      const { exchange } = await ctx.data.list('limit=1');
      if (!exchange.response) return inconclusive('nosniff and X-Request-Id', 'no answer', exchange);
      const h = exchange.response.headers;
      return advisory(
        'project decision: X-Content-Type-Options: nosniff and X-Request-Id',
        `X-Content-Type-Options: ${h['x-content-type-options'] ?? '(none)'}; X-Request-Id: ${h['x-request-id'] ? 'present' : '(none)'}`,
        exchange,
      );
    },
  },
  {
    id: 'ENVELOPE-011',
    section: '§4, §7',
    title: 'No request meets a server error, a cut connection or an HTML error page',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Every request must get a complete JSON answer: a 5xx, a reset connection or a proxy’s HTML page on any request is a fault a client meets, even if a retry would succeed.',
    async run(ctx) {
      const sent = ctx.client.exchanges.filter((e) => e.response || (e.error && e.error.kind !== 'budget'));
      const findings = sent.flatMap((exchange) => {
        const problem = faultOf(exchange, ctx.config.baseUrl);
        return problem ? [{ exchange, problem }] : [];
      });
      return judge('a complete, non-5xx, non-HTML answer to every request', findings, sent.length);
    },
  },
  {
    id: 'ENVELOPE-012',
    section: '§4',
    title: 'An answer that declares a Content-Encoding decodes from it',
    area: 'envelope',
    level: 'required',
    mock: 'run',
    traffic: true,
    hint: 'Send Content-Encoding only for a body actually coded that way (gzip, deflate or br), and never a coding clients cannot decode.',
    async run(ctx) {
      const sent = ctx.client.exchanges.filter((e) => e.response || e.error?.kind === 'undecodable');
      const findings = sent.flatMap((exchange) =>
        exchange.error?.kind === 'undecodable' ? [{ exchange, problem: exchange.error.message }] : [],
      );
      const coded = sent.filter((e) => e.response?.encoded || e.error?.kind === 'undecodable').length;
      const outcome = judge('every content-coded body decodes', findings, sent.length);
      return findings.length === 0 && outcome.status === 'pass'
        ? { ...outcome, actual: `${coded} of ${sent.length} answers came content-coded; all decode` }
        : outcome;
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
    traffic: true,
    hint: 'A request saying Accept-Encoding: identity should get an uncompressed answer (RFC 9110 §12.5.3); clients that decode anyway still read it.',
    async run(ctx) {
      const expected = 'project decision: identity answers when the request asks for identity';
      const plain = answered(ctx).filter(askedIdentity);
      const coded = plain.filter((e) => e.response.encoded);
      if (plain.length === 0) return inconclusive(expected, 'no answer to a request asking for identity');
      const codings = [...new Set(coded.map((e) => e.response.encoded?.coding))].join(', ');
      return counted(
        advisory(
          expected,
          coded.length === 0
            ? `all ${plain.length} answers came uncoded`
            : `${coded.length} of ${plain.length} answers came coded (${codings}) although the request asked for identity; the suite decoded and judged them`,
          coded[0] ?? plain[0],
        ),
        { requests: plain.length, records: plain.length, unit: 'answers' },
      );
    },
  },
];

const GZIP_CONTENT_HINT =
  'A gzip answer must decode to exactly the JSON the identity answer carries: compress the same body you would send uncompressed.';

/**
 * What an answer to `Accept-Encoding: gzip` shows against the identity answer to the same request:
 * the coding and sizes, whether the decoded content is the same JSON, whether `Vary` names
 * Accept-Encoding, and whether the two codings carry different entity tags (RFC 9110 §8.8.3).
 */
function compressionReport(
  answer: ResponseData,
  identity: ResponseData | undefined,
): { actual: string; sameContent: boolean } {
  const parts: string[] = [];
  let sameContent = true;
  if (answer.encoded) {
    const ratio = identity?.bytes ? ` (${Math.round((100 * answer.encoded.bytes) / identity.bytes)}%)` : '';
    parts.push(
      `${answer.encoded.coding}: ${answer.encoded.bytes} bytes for ${identity ? `${identity.bytes} identity bytes${ratio}` : `${answer.bytes} decoded bytes`}`,
    );
    sameContent = identity?.json !== undefined && isDeepStrictEqual(answer.json, identity.json);
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
