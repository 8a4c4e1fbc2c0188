/**
 * Read-only (§1, §4: every live endpoint is GET): every write is refused, on every live path and
 * wherever else under the API a client sends one, whichever source the exchange came from. The
 * suite's own writes aim at a collection (with an empty body) and at an id that does not exist,
 * never at real data, so a deployment that wrongly accepts them loses nothing to the suite.
 */
import { answered, describe, errorOf, requestLine } from '../core/answers.ts';
import type { Observation } from '../core/observation.ts';
import { PRIMARY_KEY } from '../core/roles.ts';
import type { Probe, Rule, World } from '../core/rule.ts';
import { breaks, chose, holds } from '../core/rule.ts';
import { pathOf, type OperationModel } from '../core/spec-model.ts';
import { readOf } from './requests.ts';

/** D-METHOD: the project refuses writes with this code (its status from the spec) and an `Allow` header. */
const WRITE_CODE = 'method_not_allowed';
/** HTTP's Method Not Allowed, for a spec that names no status for the code. */
const METHOD_NOT_ALLOWED = 405;

/**
 * Methods that do not write; every other one writes. TRACE and TRACK echo the request rather than
 * write: SECURITY-003 judges them, so an echo is one failure there, not a second one here.
 */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'TRACK']);

const MOCK_METHODS = {
  skip: 'the mock answers methods the spec does not list itself, with its own problem+json 405',
};

/** The writes the suite sends, one rule each; METHODS-001 also judges every other writing method. */
const WRITES = [
  { id: 'METHODS-001', method: 'POST' },
  { id: 'METHODS-002', method: 'PUT' },
  { id: 'METHODS-003', method: 'PATCH' },
  { id: 'METHODS-004', method: 'DELETE' },
] as const;
const NAMED_WRITES: ReadonlySet<string> = new Set(WRITES.map((write) => write.method));

/** Whether this rule's method is the exchange's: its own, or (POST's rule) any other write. */
function isWriteOf(method: string, obs: Observation): boolean {
  const sent = obs.exchange.request.method.toUpperCase();
  if (sent === method) return true;
  return method === 'POST' && !READ_METHODS.has(sent) && !NAMED_WRITES.has(sent);
}

/** A write under the API (a documented path or not), with the answer it got. */
function writeAnswer(obs: Observation) {
  const underApi = obs.op !== undefined || obs.inApi;
  const writes = !READ_METHODS.has(obs.exchange.request.method.toUpperCase());
  return underApi && writes ? obs.exchange.response : undefined;
}

/** A write on a live operation's path: the collection itself, or an item that does not exist. */
function writeTo(op: OperationModel, world: World, method: string): Probe[] {
  const body = method === 'DELETE' ? {} : { body: '{}' };
  const path = pathOf(op, ...op.pathParameters.map(() => world.unknownId));
  const request = world.request(op, { key: PRIMARY_KEY, method, path, ...body });
  return request ? [{ request }] : [];
}

/** The answer's `Allow` header, as reports show it. */
const allowOf = (obs: Observation) => obs.exchange.response?.headers.allow;

export const methodsRules: Rule[] = [
  ...WRITES.map((write): Rule => ({
    id: write.id,
    section: '§1, §4',
    title:
      write.method === 'POST'
        ? 'POST (and any other writing method) is refused with a 4xx on every path: the API is read-only'
        : `${write.method} is refused with a 4xx on every path: the API is read-only`,
    area: 'methods',
    level: 'required',
    owasp: ['API5:2023'],
    mock: MOCK_METHODS,
    about: 'answers to its requests',
    expected: `every ${write.method} under the API answered with a 4xx`,
    hint: `Refuse ${write.method} with a 4xx error envelope (the project answers 405 method_not_allowed with Allow: GET, HEAD).`,
    plan: (op, world) => writeTo(op, world, write.method),
    judge(obs) {
      const response = writeAnswer(obs);
      if (!response || !isWriteOf(write.method, obs)) return undefined;
      const refused = response.status >= 400 && response.status <= 499;
      return refused ? holds(obs) : breaks(`${requestLine(obs)}: answered ${describe(response)}`, obs);
    },
  })),
  {
    id: 'METHODS-005',
    section: '§4',
    title: 'Status and Allow header for writes',
    area: 'methods',
    level: 'advisory',
    decision: 'D-METHOD',
    owasp: ['API5:2023'],
    mock: MOCK_METHODS,
    expected: 'project decision: 405 method_not_allowed with Allow: GET, HEAD (any 4xx is conformant)',
    hint: 'Any 4xx is conformant.',
    plan: (op, world) => WRITES.flatMap((write) => writeTo(op, world, write.method)),
    judge(obs, ctx) {
      const response = writeAnswer(obs);
      if (!response || response.status < 400 || response.status > 499) return undefined;
      const allow = allowOf(obs);
      const status = ctx.spec.statusOfCode(WRITE_CODE) ?? METHOD_NOT_ALLOWED;
      const asDecided =
        response.status === status && errorOf(response).code === WRITE_CODE && allow !== undefined;
      return chose(
        `${obs.exchange.request.method} → ${answered(response)}${allow ? ` (Allow: ${allow})` : ''}`,
        !asDecided,
        obs,
      );
    },
  },
  {
    id: 'METHODS-006',
    section: '§4',
    title: 'HEAD on every live operation',
    area: 'methods',
    level: 'advisory',
    decision: 'D-HEAD',
    mock: MOCK_METHODS,
    expected: 'project decision: answered like GET, without a body',
    hint: 'The project answers HEAD like GET, without a body.',
    plan(op, world) {
      const request = readOf(op, world, { key: PRIMARY_KEY, method: 'HEAD' });
      return request ? [{ request }] : [];
    },
    judge(obs) {
      const response = obs.exchange.response;
      if (!obs.op || obs.exchange.request.method !== 'HEAD' || !response) return undefined;
      // Read off the socket (ENVELOPE-018), the bytes an HTTP client drops after the headers count too.
      const socket = response.socket && 'afterHeaders' in response.socket ? response.socket.afterHeaders : 0;
      const bytes = response.bytes + socket;
      return chose(
        `HEAD → ${response.status}${bytes > 0 ? ` with ${bytes} body bytes` : ', no body'}`,
        response.status === METHOD_NOT_ALLOWED || bytes > 0,
        obs,
      );
    },
  },
];
