/**
 * Items and paths that do not exist (§4.3 rule 1, §7), on every live item operation of the spec
 * under test: an unknown id gets the not-found refusal the operation documents, a malformed id is
 * refused in the error envelope, and an unknown path under the API's prefix is too. The unknown id
 * is one the suite makes up (`core/ids.ts`) and a malformed id one the spec's own schema of the
 * item's `id` refuses, so each rule knows its requests from what they carry, in recordings too.
 */
import {
  answered,
  describe,
  errorEnvelopeProblem,
  errorOf,
  isClientError,
  requestLine,
  servesData,
} from '../core/answers.ts';
import { isUnknownId } from '../core/ids.ts';
import type { Observation } from '../core/observation.ts';
import { hasBody } from '../core/observation.ts';
import { PRIMARY_KEY, reads, roleOf } from '../core/roles.ts';
import type { Probe, Rule, World } from '../core/rule.ts';
import { breaks, chose, holds } from '../core/rule.ts';
import type { OperationModel, SpecModel } from '../core/spec-model.ts';
import type { ResponseData } from '../core/exchange.ts';
import { pathPattern } from './requests.ts';
import { isObject } from '../../spec/json-value.ts';
import { remembered } from '../../spec/remembered.ts';

/** HTTP's Not Found: what "does not exist" is answered with wherever the spec documents it. */
const NOT_FOUND = 404;

/** Verdicts on ids kept at most (`remembered`). */
const MAX_REMEMBERED = 4096;

/** Ids the spec's schema of an item's `id` may refuse, tried in this order. */
const MALFORMED_CANDIDATES = ['not-an-id', '-1'];

/** A GET: what a HEAD answers is the deployment's choice (D-HEAD, METHODS-006), never a refusal's proof. */
const isRead = (obs: Observation) => obs.exchange.request.method === 'GET';

/**
 * The codes the spec gives "not found": those of the operation's documented 404 examples, else
 * every code the spec pairs with 404 (`not_found`).
 */
export function notFoundCodes(spec: SpecModel, op?: OperationModel): string[] {
  const own = op ? spec.codesOf(op, NOT_FOUND) : [];
  if (own.length > 0) return own;
  return Object.keys(spec.errorStatuses).filter((code) => spec.statusOfCode(code) === NOT_FOUND);
}

/** `404 not_found`, or `404` when the spec names no code for it. */
const notFoundAnswer = (codes: readonly string[]) =>
  `${NOT_FOUND}${codes.length > 0 ? ` ${codes.join(' or ')}` : ''}`;

/** Whether an answer is the not-found refusal with one of these codes. */
export function isNotFound(response: ResponseData, codes: readonly string[]): boolean {
  const code = errorOf(response).code;
  return (
    response.status === NOT_FOUND &&
    (codes.length === 0 || (typeof code === 'string' && codes.includes(code)))
  );
}

/** The id an item operation's answer is about: its last path parameter. */
function itemIdOf(obs: Observation): string | undefined {
  const name = obs.op?.pathParameters.at(-1);
  return name === undefined ? undefined : obs.params[name];
}

/** Verdicts on ids per spec, by `operationId id`: the same ids come back answer after answer. */
const refusalsOf = new WeakMap<SpecModel, (operationAndId: string) => string>();

/** Why the spec's schema of the item's `id` refuses this id (`must match format "uuid"`), or undefined. */
export function idRefusal(spec: SpecModel, op: OperationModel, id: string): string | undefined {
  let refusal = refusalsOf.get(spec);
  if (!refusal) {
    refusal = remembered((operationAndId) => {
      const [operationId = '', ...rest] = operationAndId.split(' ');
      const data = { id: rest.join(' ') };
      const { errors } = spec.contract.validateResponse(operationId, 200, { ok: true, data });
      return errors.find((error) => error.startsWith('/data/id '))?.slice('/data/id '.length) ?? '';
    }, MAX_REMEMBERED);
    refusalsOf.set(spec, refusal);
  }
  return refusal(`${op.operationId} ${id}`) || undefined;
}

/** An id of this item operation its spec refuses, when the spec constrains ids at all. */
function malformedIdOf(spec: SpecModel, op: OperationModel): string | undefined {
  return MALFORMED_CANDIDATES.find((id) => idRefusal(spec, op, id) !== undefined);
}

/** The credentials read the campaign's records: a configured key that is valid and scoped. */
export function readsRecords(obs: Observation): boolean {
  return obs.credential.kind === 'key' && reads(roleOf(obs.credential.key));
}

/** A read of an item operation: its id as the exchange carried it. */
function itemRead(obs: Observation): { op: OperationModel; id: string; response: ResponseData } | undefined {
  const { op } = obs;
  const response = obs.exchange.response;
  const id = itemIdOf(obs);
  if (!op || op.kind !== 'item' || !isRead(obs) || !response || id === undefined) return undefined;
  return { op, id, response };
}

const at = (obs: Observation, problem: string) => `${requestLine(obs)}: ${problem}`;

/**
 * Why an answer is not a refusal in the error envelope (a 4xx, the envelope, no data), or undefined
 * when it is one. An answer without a body (a recording that kept none) is judged by its status.
 */
function refusalProblem(spec: SpecModel, obs: Observation, response: ResponseData): string | undefined {
  if (!isClientError(response.status)) return `answered ${describe(response)}`;
  if (!hasBody(obs.exchange.request.method, response)) return undefined;
  const problem = errorEnvelopeProblem(spec, response);
  if (problem) return `${response.status}, ${problem}`;
  if (servesData(response) || (isObject(response.json) && response.json.data !== undefined)) {
    return `${response.status}, but data came back with the refusal`;
  }
  return undefined;
}

/**
 * A refusal recorded without its body (a gateway's log): its status shows, but not whether it is
 * the error envelope, nor which refusal: the rules about refusals cannot judge it.
 */
function unreadRefusal(obs: Observation, response: ResponseData): boolean {
  return obs.bodyless && isClientError(response.status);
}

/** The unknown-id request of an item operation, with the primary key. */
function unknownItem(op: OperationModel, world: World): Probe[] {
  const request = world.request(op, { key: PRIMARY_KEY, id: world.unknownId });
  return request ? [{ request }] : [];
}

/** The malformed-id request of an item operation, when its spec refuses some id. */
function malformedItem(op: OperationModel, world: World): Probe[] {
  const id = malformedIdOf(world.spec, op);
  const request = id === undefined ? undefined : world.request(op, { key: PRIMARY_KEY, id });
  return request ? [{ request }] : [];
}

const isItem = (op: OperationModel) => op.live && op.method === 'GET' && op.kind === 'item';

const MOCK_ANY_ID = { skip: 'the mock answers any id with the example item' };
const MOCK_OWN_ROUTER = { skip: 'the mock answers unknown paths itself, with its own problem+json' };

export const notFoundRules: Rule[] = [
  {
    id: 'NOT-FOUND-001',
    section: '§4.3 rule 1, §7',
    title: 'An item id that does not exist gets 404 not_found (every item operation)',
    area: 'not-found',
    level: 'required',
    mock: 'run',
    about: 'answers to its requests',
    expected:
      'an unknown id, asked with a valid key, gets 404 with the code its operation documents (not_found); a 4xx error envelope where it documents no 404',
    hint: 'Answer unknown ids with 404 {"ok":false,"error":{"code":"not_found","message":"..."}}, the code your spec gives 404.',
    appliesTo: isItem,
    plan: unknownItem,
    judge(obs, ctx) {
      const read = itemRead(obs);
      if (!read || !isUnknownId(read.id) || !readsRecords(obs)) return undefined;
      const { op, response } = read;
      if (!op.statuses.includes(String(NOT_FOUND))) {
        if (unreadRefusal(obs, response)) return undefined;
        const problem = refusalProblem(ctx.spec, obs, response);
        return problem ? breaks(at(obs, problem), obs) : holds(obs);
      }
      const codes = notFoundCodes(ctx.spec, op);
      const wanted = notFoundAnswer(codes);
      if (response.status !== NOT_FOUND) {
        return breaks(at(obs, `answered ${describe(response)}, not ${wanted}`), obs);
      }
      if (unreadRefusal(obs, response)) return undefined;
      if (!hasBody(obs.exchange.request.method, response)) return holds(obs);
      const problem = errorEnvelopeProblem(ctx.spec, response);
      if (problem) return breaks(at(obs, `${response.status}, ${problem}`), obs);
      return isNotFound(response, codes)
        ? holds(obs)
        : breaks(at(obs, `answered ${answered(response)}, not ${wanted}`), obs);
    },
  },
  {
    id: 'NOT-FOUND-002',
    section: '§4.3',
    title: 'A malformed item id is refused (4xx error envelope)',
    area: 'not-found',
    level: 'required',
    mock: MOCK_ANY_ID,
    about: 'answers to its requests',
    expected: 'an id the spec’s schema of the item’s id refuses gets a 4xx in the error envelope, never data',
    hint: 'Answer ids that are not of the documented shape with a 4xx error envelope (the project answers 404 not_found, as for an unknown id).',
    appliesTo: isItem,
    plan: malformedItem,
    judge(obs, ctx) {
      const read = itemRead(obs);
      if (!read || (read.response.status >= 300 && read.response.status <= 399)) return undefined;
      const refused = idRefusal(ctx.spec, read.op, read.id);
      if (refused === undefined || unreadRefusal(obs, read.response)) return undefined;
      const problem = refusalProblem(ctx.spec, obs, read.response);
      return problem ? breaks(at(obs, `an id that ${refused}: ${problem}`), obs) : holds(obs);
    },
  },
  {
    id: 'NOT-FOUND-003',
    section: '§4.3',
    title: 'Status and code for a malformed item id',
    area: 'not-found',
    level: 'advisory',
    decision: 'D-ID-MALFORMED',
    mock: MOCK_ANY_ID,
    expected: 'project decision: 404 not_found, as an unknown id (any 4xx error envelope is conformant)',
    hint: 'Any 4xx error envelope is conformant.',
    appliesTo: isItem,
    plan: malformedItem,
    judge(obs, ctx) {
      const read = itemRead(obs);
      if (!read || !isClientError(read.response.status) || !readsRecords(obs)) return undefined;
      if (idRefusal(ctx.spec, read.op, read.id) === undefined) return undefined;
      const { response } = read;
      return chose(
        `this deployment answers ${answered(response)}`,
        !isNotFound(response, notFoundCodes(ctx.spec, read.op)),
        obs,
      );
    },
  },
  {
    id: 'NOT-FOUND-004',
    section: '§7',
    title: 'An unknown path under the API prefix gets a 4xx error envelope',
    area: 'not-found',
    level: 'required',
    decision: 'D-PATH-UNKNOWN',
    mock: MOCK_OWN_ROUTER,
    about: 'answers to its requests',
    expected:
      'a path under the API prefix that is no endpoint, live or planned, nor a spelling of one, gets a 4xx in the error envelope',
    hint: 'End routing with a JSON 404 in the error envelope, never the framework’s HTML page.',
    planOnce: unknownPath,
    judge(obs, ctx) {
      const response = unknownPathAnswer(obs, ctx.spec);
      if (!response || unreadRefusal(obs, response)) return undefined;
      const problem = refusalProblem(ctx.spec, obs, response);
      return problem ? breaks(at(obs, problem), obs) : holds(obs);
    },
  },
  {
    id: 'NOT-FOUND-006',
    section: '§7',
    title: 'Status and code for an unknown path under the API prefix',
    area: 'not-found',
    level: 'advisory',
    decision: 'D-PATH-UNKNOWN',
    mock: MOCK_OWN_ROUTER,
    expected: 'project decision: 404 not_found (any 4xx error envelope is conformant)',
    hint: 'Any 4xx error envelope is conformant.',
    planOnce: unknownPath,
    judge(obs, ctx) {
      const response = unknownPathAnswer(obs, ctx.spec);
      if (!response || !isClientError(response.status) || obs.bodyless) return undefined;
      return chose(
        `this deployment answers ${answered(response)}`,
        !isNotFound(response, notFoundCodes(ctx.spec)),
        obs,
      );
    },
  },
];

/** The unknown path's request, with the primary key. */
function unknownPath(world: World): Probe[] {
  const request = world.request(world.spec.live[0] as OperationModel, {
    key: PRIMARY_KEY,
    path: unknownPathOf(world.spec),
  });
  return request ? [{ request }] : [];
}

/** The answer to a read of a path under the API prefix that no endpoint has, in any spelling. */
function unknownPathAnswer(obs: Observation, spec: SpecModel): ResponseData | undefined {
  const response = obs.exchange.response;
  if (!response || obs.op || !obs.inApi || !isRead(obs)) return undefined;
  return isUnknownPath(spec, obs.path) ? response : undefined;
}

/** A path next to a live collection's that no spec serves: `/api/v1/walks-unknown-path`. */
function unknownPathOf(spec: SpecModel): string {
  const collection = spec.live.find((op) => op.pathParameters.length === 0);
  return collection ? `${collection.path}-unknown-path` : `${spec.apiPrefix}/unknown-path`;
}

/**
 * Whether a path names no endpoint of the spec, live or planned, in any spelling: other letter
 * case, doubled or trailing slashes, percent-encoded letters and dot segments are spellings of a
 * path (the path variants judge those), not unknown paths.
 */
export function isUnknownPath(spec: SpecModel, path: string): boolean {
  const plain = plainSpelling(path);
  const known = [...spec.operations.map((op) => op.path), ...spec.plannedPaths];
  return !known.some((template) => pathPattern(template, 'i').test(plain));
}

/** `/API/v1//%77alks/./` → `/API/v1/walks`: segments decoded, empty and dot segments resolved. */
function plainSpelling(path: string): string {
  const segments: string[] = [];
  for (const raw of path.split('/')) {
    const segment = safeDecode(raw);
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
