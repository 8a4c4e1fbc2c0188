/**
 * Security misconfiguration (OWASP API8:2023), judged on every answer: what a shared cache may
 * store, what a browser on any origin may read with credentials, what a keyed TRACE echoes, what
 * an error body tells of the code behind it. Each was a decision or drift before; a deployment with
 * one of them hands a key's data or its internals to someone else, so each fails by default, in an
 * area of its own (an expected-failures file may list one a deployment knows of).
 */
import { describe, requestLine } from '../core/answers.ts';
import { credentialLabel } from '../core/credentials.ts';
import type { Observation } from '../core/observation.ts';
import { PRIMARY_KEY, roleOf } from '../core/roles.ts';
import type { Judgement, Probe, Rule, World } from '../core/rule.ts';
import { breaks, holds } from '../core/rule.ts';
import type { OperationModel } from '../core/spec-model.ts';
import { safeDecode } from '../core/spec-model.ts';
import type { ResponseData } from '../core/exchange.ts';
import { collectionRequest } from './requests.ts';

/** The Origin a browser on any other site sends: no deployment lists it. */
const ARBITRARY_ORIGIN = 'https://example.org';

const at = (obs: Observation, problem: string) => `${requestLine(obs)}: ${problem}`;
const reproduce = (obs: Observation) => `reproduce: ${obs.exchange.request.curl}`;

function requestHeader(obs: Observation, name: string): string | undefined {
  return Object.entries(obs.exchange.request.headers).find(([n]) => n.toLowerCase() === name)?.[1];
}

/** The request carried a configured key that still works (the answers a key is owed alone). */
const keyed = (obs: Observation) => obs.credential.kind === 'key' && roleOf(obs.credential.key).valid;

/** The directives of Cache-Control, lower case, without their values. */
const directivesOf = (value: string | undefined) =>
  new Set(
    (value ?? '')
      .toLowerCase()
      .split(',')
      .map((part) => part.split('=')[0]?.trim() ?? '')
      .filter((part) => part !== ''),
  );

/** Why a shared cache may store an answer (RFC 9111 §3, §5.2.2), or undefined when none may. */
export function sharedCacheable(response: ResponseData): string | undefined {
  const value = response.headers['cache-control'];
  const directives = directivesOf(value);
  if (directives.has('no-store') || directives.has('private')) return undefined;
  if (directives.has('public')) return `Cache-Control: ${value} lets any shared cache store it`;
  if (directives.has('s-maxage')) return `Cache-Control: ${value} gives shared caches a lifetime (s-maxage)`;
  return undefined;
}

/**
 * Stack frames, interpreter and driver errors, and source paths: what an error body must never
 * hold. The request's own path is taken out first: an error that names the path asked is no leak.
 */
const INTERNALS: readonly { name: string; pattern: RegExp }[] = [
  {
    name: 'a JavaScript stack frame',
    pattern: /\bat (?:[\w$.<>[\] ]+ )?\(?(?:file:\/\/|\/|[A-Za-z]:\\)[^\s)]*:\d+:\d+\)?/,
  },
  { name: 'a Python traceback', pattern: /Traceback \(most recent call last\)/ },
  { name: 'a Java stack frame', pattern: /\bat [\w$.]+\([\w$]+\.(?:java|kt|scala):\d+\)/ },
  { name: 'an exception class', pattern: /\b(?:java\.lang|System)\.\w*Exception\b/ },
  {
    name: 'a SQL error',
    pattern: /SQLSTATE\[|syntax error at or near|error in your SQL syntax|\bORA-\d{5}\b|SQLITE_ERROR/i,
  },
  { name: 'a source file path', pattern: /(?:\/[\w.@-]+){2,}\.(?:js|mjs|cjs|ts|py|rb|php|java|go|cs)\b/ },
  { name: 'a path into node_modules', pattern: /node_modules[\\/]/ },
  { name: 'a Windows path', pattern: /\b[A-Za-z]:\\(?:[\w .-]+\\)+/ },
];

/** What of the code behind an error body tells, or undefined when nothing does. */
export function internalsIn(obs: Observation, body: string): string | undefined {
  let text = body;
  for (const asked of [obs.target, obs.path, safeDecode(obs.path)])
    if (asked) text = text.split(asked).join(' ');
  const found = INTERNALS.find(({ pattern }) => pattern.test(text));
  if (!found) return undefined;
  const excerpt = found.pattern.exec(text)?.[0] ?? '';
  return `${found.name} (${excerpt.slice(0, 80)})`;
}

/** A live operation's read with the primary key and these headers: a collection's smallest page, a real item. */
function keyedRead(op: OperationModel, world: World, headers: Record<string, string>): Probe[] {
  const request =
    op.kind === 'collection'
      ? collectionRequest(op, world, { key: PRIMARY_KEY, headers })
      : world.request(op, { key: PRIMARY_KEY, headers });
  return request ? [{ request }] : [];
}

/**
 * TRACE with the key, on the first live route by default, on every route in full. TRACK is judged
 * where a recording shows it, never sent: HTTP parsers such as Node's close the connection on a
 * method they do not know, which leaves no answer to judge.
 */
function traceProbes(op: OperationModel, world: World): Probe[] {
  const first = world.spec.live.find((live) => live.secured && live.kind !== 'other');
  if (world.depth !== 'full' && op !== first) return [];
  const request = world.request(op, { key: PRIMARY_KEY, method: 'TRACE' });
  return request ? [{ request, private: true as const }] : [];
}

function traceVerdict(obs: Observation): Judgement | undefined {
  const method = obs.exchange.request.method.toUpperCase();
  const response = obs.exchange.response;
  if ((method !== 'TRACE' && method !== 'TRACK') || !response || obs.credential.kind !== 'key')
    return undefined;
  if (response.status < 200 || response.status > 299) return holds(obs);
  return breaks(
    at(
      obs,
      `${method} with ${credentialLabel(obs.credential)} answered ${describe(response)}: an echo of the request hands its headers (the key among them) to any script that can send it; ${reproduce(obs)}`,
    ),
    obs,
  );
}

export const securityRules: Rule[] = [
  {
    id: 'SECURITY-001',
    section: '§5.7',
    title:
      'No keyed answer may be stored by a shared cache (Cache-Control public, or s-maxage without private)',
    area: 'security',
    level: 'required',
    owasp: ['API8:2023'],
    mock: 'run',
    unit: 'keyed answers',
    expected: 'no Cache-Control: public, and no s-maxage without private or no-store, on an answer to a key',
    hint: 'Send Cache-Control: private, no-cache (or no-store) on keyed answers: a shared cache keyed by URL serves one campaign’s answer to another.',
    judge(obs) {
      const response = obs.exchange.response;
      if (!obs.op || !response || !keyed(obs) || response.status >= 400) return undefined;
      const why = sharedCacheable(response);
      return why ? breaks(at(obs, `${why}; ${reproduce(obs)}`), obs) : holds(obs);
    },
  },
  {
    id: 'SECURITY-002',
    section: '§5.7',
    title: 'No answer lets a browser on any origin read it with credentials (CORS)',
    area: 'security',
    level: 'required',
    owasp: ['API8:2023'],
    mock: 'run',
    unit: 'answers to a request with an Origin',
    expected: `no Access-Control-Allow-Credentials: true beside an Access-Control-Allow-Origin that allows an arbitrary origin (${ARBITRARY_ORIGIN}, *, null)`,
    hint: 'Send no CORS grants (keys are for servers only); never reflect the Origin a request names together with Access-Control-Allow-Credentials: true.',
    plan: (op, world) => keyedRead(op, world, { Origin: ARBITRARY_ORIGIN }),
    judge(obs) {
      const response = obs.exchange.response;
      const origin = requestHeader(obs, 'origin');
      if (!obs.op || !response || origin === undefined) return undefined;
      const allowed = response.headers['access-control-allow-origin']?.trim();
      const credentials =
        response.headers['access-control-allow-credentials']?.trim().toLowerCase() === 'true';
      const anyOrigin = allowed === '*' || allowed === 'null' || allowed === origin;
      if (!credentials || !anyOrigin) return holds(obs);
      return breaks(
        at(
          obs,
          `Access-Control-Allow-Origin: ${allowed} with Access-Control-Allow-Credentials: true to Origin: ${origin}; ${reproduce(obs)}`,
        ),
        obs,
      );
    },
  },
  {
    id: 'SECURITY-003',
    section: '§4',
    title: 'TRACE and TRACK asked with a key are refused (no echo of the request and its key)',
    area: 'security',
    level: 'required',
    owasp: ['API8:2023'],
    mock: { skip: "the mock is Prism's router: its answer to TRACE says nothing of a deployment" },
    about: 'answers to its requests',
    unit: 'TRACE and TRACK requests',
    expected:
      'no 2xx to TRACE with the primary key (nor to TRACK, where a recording shows one): a 4xx, 405 or 501',
    hint: 'Disable TRACE and TRACK on the server and every proxy in front of it.',
    plan: traceProbes,
    judge: traceVerdict,
  },
  {
    id: 'SECURITY-004',
    section: '§7',
    title: 'Error bodies hold no stack trace, driver error or path of the code behind them',
    area: 'security',
    level: 'required',
    owasp: ['API8:2023'],
    mock: 'run',
    about: 'every answer, whatever else failed',
    unit: 'error answers',
    expected:
      'the error envelope with a code and a message for people; no stack frames, SQL errors or source paths',
    hint: 'Log the exception on the server; answer with the error envelope and a generic message.',
    judge(obs) {
      const response = obs.exchange.response;
      if (!response || response.status < 400 || (!obs.op && !obs.inApi) || obs.bodyless) return undefined;
      const found = internalsIn(obs, response.body);
      return found
        ? breaks(at(obs, `the error body shows ${found}: ${describe(response)}; ${reproduce(obs)}`), obs)
        : holds(obs);
    },
  },
];
