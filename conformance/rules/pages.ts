/**
 * What the collection and item rules read of an exchange: to whom it was answered (a holder: one key
 * in one header), whether it is a plain read (nothing asked of it but the items), which `limit` it
 * asked for, and when, so that answers far apart in a recording are not taken to see the same data.
 */
import { isObject } from '../../spec/json-value.ts';
import { dataOf } from '../core/answers.ts';
import type { Credential } from '../core/credentials.ts';
import { roleOfCredential } from '../core/credentials.ts';
import type { Observation } from '../core/observation.ts';
import type { Judgement } from '../core/rule.ts';
import { unjudged } from '../core/rule.ts';
import { reads } from '../core/roles.ts';
import { valueAt } from '../core/pagination.ts';
import type { LimitParameter, OperationModel } from '../core/spec-model.ts';

/**
 * Answers of a recording closer in time than this are taken to see the same data: items come and
 * go, rarely within a minute. A live run is one pass over data it has just listed, so it has no
 * such horizon.
 */
const SAME_DATA_MS = 60_000;

/**
 * Who an answer went to: one key in one header (`$CONFORMANCE_API_KEY bearer`, `key#3f9a1c0e
 * x-api-key`). The header is part of it: a deployment that reads the two headers differently is the
 * key rules' fault to name, and must not show here as a collection that changes size.
 */
export function holderOf(credential: Credential): string | undefined {
  if (credential.kind === 'key') return `$${credential.key} ${credential.via}`;
  if (credential.kind === 'recorded') return `${credential.id} ${credential.via}`;
  return undefined;
}

/** Whether the request carried a key that reads its campaign's records (valid and scoped). */
export function byReadingKey(obs: Observation): boolean {
  const role = roleOfCredential(obs.credential);
  return obs.credential.kind === 'recorded' || (role !== undefined && reads(role));
}

/** Headers that ask for something else than the current representation (a 304, a part, a status). */
const ASKING_FOR_OTHER = ['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'range'];

/**
 * A request's headers by lower-case name, for several look-ups: a name as given first, else the
 * first header whose name is that in another case.
 */
function requestHeaders(obs: Observation): (name: string) => string | undefined {
  const headers = obs.exchange.request.headers;
  const byLowerName = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!byLowerName.has(lower)) byLowerName.set(lower, value);
  }
  return (name) => (name in headers ? headers[name] : byLowerName.get(name));
}

/** Whether an Accept header admits JSON (no header admits anything). */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  return accept
    .split(',')
    .map((part) => part.split(';')[0]?.trim().toLowerCase())
    .some((type) => type === '*/*' || type === 'application/*' || type === 'application/json');
}

/**
 * A plain read: a GET asking for the current JSON representation, with no query but a valid
 * `limit`. Its answer must be the items themselves; other reads (conditional, another media type, a
 * mock told which status to give, a bad or an unknown parameter) may legally be answered otherwise.
 */
export function isPlainRead(obs: Observation): boolean {
  let plain = plainReads.get(obs);
  if (plain === undefined) {
    plain = plainRead(obs);
    plainReads.set(obs, plain);
  }
  return plain;
}

/** Whether each observation is a plain read, worked out once for the several rules that ask. */
const plainReads = new WeakMap<Observation, boolean>();

/**
 * A read of one page of a paged operation: a plain read but for one value of its cursor parameter
 * (the first page carries none).
 */
export function isPageRead(obs: Observation): boolean {
  const cursor = obs.op?.pagination?.cursor;
  if (cursor === undefined || obs.query.getAll(cursor).length > 1) return false;
  let page = pageReads.get(obs);
  if (page === undefined) {
    page = plainRead(obs, cursor);
    pageReads.set(obs, page);
  }
  return page;
}

const pageReads = new WeakMap<Observation, boolean>();

function plainRead(obs: Observation, cursor?: string): boolean {
  const { op } = obs;
  if (!op || obs.exchange.request.method !== 'GET') return false;
  const requestHeader = requestHeaders(obs);
  if (ASKING_FOR_OTHER.some((name) => requestHeader(name) !== undefined)) return false;
  if (/\bcode=/.test(requestHeader('prefer') ?? '')) return false;
  if (!acceptsJson(requestHeader('accept'))) return false;
  for (const name of obs.query.keys()) if (name !== op.limit?.name && name !== cursor) return false;
  return limitAsked(obs).kind !== 'bad';
}

/** The `limit` a request asked for: none, one valid value, or a bad one (`badLimitOf` says which). */
export type LimitAsked = { kind: 'none' } | { kind: 'valid'; n: number } | { kind: 'bad'; values: string[] };

export function limitAsked(obs: Pick<Observation, 'op' | 'query'>): LimitAsked {
  const limit = obs.op?.limit;
  if (!limit) return { kind: 'none' };
  const values = obs.query.getAll(limit.name);
  if (values.length === 0) return { kind: 'none' };
  const n = validLimit(values, limit);
  return n === undefined ? { kind: 'bad', values } : { kind: 'valid', n };
}

/** The one value asked, when it is an integer within the bounds. */
function validLimit(values: string[], limit: LimitParameter): number | undefined {
  const [only] = values;
  if (values.length !== 1 || only === undefined || !/^\d+$/.test(only)) return undefined;
  const n = Number(only);
  return n >= limit.minimum && n <= limit.maximum ? n : undefined;
}

/** `limit=20`, `no limit (default 50)`: the page size asked, as problems name it. */
export function askedText(op: OperationModel, asked: LimitAsked): string {
  const limit = op.limit;
  if (!limit || asked.kind === 'none')
    return limit ? `no ${limit.name} (default ${limit.default})` : 'no limit';
  if (asked.kind === 'valid') return `${limit.name}=${asked.n}`;
  return asked.values.map((v) => `${limit.name}=${v}`).join('&');
}

/**
 * The items of a 200 answer to a GET, when its body holds them: the array its operation's `limit`
 * bounds or its pagination pages (a collection's `data`, an item's `data.voters`), else `data`.
 */
export function pageOf(obs: Observation): unknown[] | undefined {
  const response = obs.exchange.response;
  if (!response || response.status !== 200 || obs.bodyless || obs.exchange.request.method !== 'GET')
    return undefined;
  if (dataOf(response) === undefined) return undefined;
  const page = valueAt(response.json, obs.op?.limit?.items ?? obs.op?.pagination?.items ?? 'data');
  return Array.isArray(page) ? page : undefined;
}

/**
 * One cause, one failure: a 200 answer whose list is there but is no array (`"data": null` where the
 * spec wants `[]`) is the schema rule's (ENVELOPE-005) to fail. A rule about the list's items, count
 * or emptiness has nothing to judge in it, and says so rather than failing it with a hint about a
 * list that is not there. Undefined when the list is an array, or the answer holds none to read.
 */
export function notAList(obs: Observation): Judgement | undefined {
  const response = obs.exchange.response;
  if (!response || response.status !== 200 || obs.bodyless || obs.exchange.request.method !== 'GET')
    return undefined;
  if (!isObject(response.json) || response.json.ok !== true) return undefined;
  const place = obs.op?.limit?.items ?? obs.op?.pagination?.items ?? 'data';
  const page = valueAt(response.json, place);
  if (Array.isArray(page)) return undefined;
  const what = page === undefined ? 'absent' : JSON.stringify(page).slice(0, 20);
  return unjudged(`${place} is ${what}, not a list (the schema rule says what it should be)`, obs);
}

/** The item of a 200 item answer to a GET, when its body holds one. */
export function itemOf(obs: Observation): Record<string, unknown> | undefined {
  const response = obs.exchange.response;
  if (!response || response.status !== 200 || obs.bodyless || obs.exchange.request.method !== 'GET')
    return undefined;
  const data = dataOf(response);
  return isObject(data) ? data : undefined;
}

/** `meta.count` of a collection answer, as sent. */
export function metaCountOf(obs: Observation): unknown {
  const body = obs.exchange.response?.json;
  return isObject(body) && isObject(body.meta) ? body.meta.count : undefined;
}

/** An item's id, when it has a string one. */
export const idOf = (item: unknown): string | undefined =>
  isObject(item) && typeof item.id === 'string' ? item.id : undefined;

/** When an exchange was sent (ms since the epoch); 0 when the source does not say. */
export const sentAt = (obs: Observation): number => obs.exchange.startedAt ?? 0;

/** A span of time something was seen in: the first and the last time. */
export interface Seen {
  first: number;
  last: number;
}

export function widen(span: Seen | undefined, at: number): Seen {
  if (!span) return { first: at, last: at };
  return { first: Math.min(span.first, at), last: Math.max(span.last, at) };
}

/** Two spans as one: from the first of either to the last of either. */
export const joinSeen = (a: Seen, b: Seen): Seen => ({
  first: Math.min(a.first, b.first),
  last: Math.max(a.last, b.last),
});

/** Whether two spans may have seen the same data: always in a live run, within the horizon in a recording. */
export function sameData(source: 'live' | 'traffic', a: Seen, b: Seen): boolean {
  if (source === 'live') return true;
  return a.first - SAME_DATA_MS <= b.last && b.first - SAME_DATA_MS <= a.last;
}

/**
 * The minute a recorded answer belongs to, for grouping answers that saw the same data; a live run
 * is one group.
 */
export const minuteOf = (obs: Observation): number =>
  obs.source === 'live' ? 0 : Math.floor(sentAt(obs) / SAME_DATA_MS);

/** The id an item request asks for: its last path parameter, decoded. */
export function askedId(obs: Observation): string | undefined {
  const op = obs.op;
  if (op?.kind !== 'item') return undefined;
  const name = op.pathParameters.at(-1);
  return name === undefined ? undefined : obs.params[name];
}
