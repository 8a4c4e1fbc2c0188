/**
 * Small readings of an answer the rules share, so every rule reads as its requirement: the error
 * envelope, its code, the success data, a one-line description for reports.
 */
import type { ResponseData } from './exchange.ts';
import { isObject } from '../../spec/json-value.ts';
import type { Evidence } from './observation.ts';
import type { SpecModel } from './spec-model.ts';

/** Characters of a body a report shows of an answer (the rest is cut, and the cut marked). */
export const EXCERPT_CHARS = 500;

/** The start of a body as reports show it. */
export const excerpt = (body: string) =>
  body.length > EXCERPT_CHARS ? `${body.slice(0, EXCERPT_CHARS)}…` : body;

/** One line saying what came back: status, content type and the start of the body. */
export function describe(response: ResponseData | undefined): string {
  if (!response) return 'no answer';
  const type = response.contentType ?? 'no content type';
  const body = response.body.length > 160 ? `${response.body.slice(0, 160)}…` : response.body;
  const none = response.unrecorded ? ', its body not recorded' : ' with an empty body';
  return `${response.status} (${type})${body ? ` ${body.replace(/\s+/g, ' ')}` : none}`;
}

/**
 * `GET https://host/api/v1/walks?limit=1`: the request of an observation, as reports name it; a
 * recorded one by its place in the recording too (`#12 GET …`), so a finding says which entry.
 */
export const requestLine = (obs: Evidence) =>
  `${obs.source === 'traffic' ? `#${obs.exchange.seq} ` : ''}${obs.exchange.request.method} ${obs.exchange.request.url}`;

export const isClientError = (status: number) => status >= 400 && status <= 499;
export const isSuccess = (status: number) => status >= 200 && status <= 299;

/** `error` of an error envelope (empty when there is none). */
export function errorOf(response: ResponseData): { code?: unknown; message?: unknown } {
  const body = response.json;
  return isObject(body) && isObject(body.error) ? body.error : {};
}

/** Why a body is not the error envelope `{ok:false,error:{code,message}}`, or undefined when it is. */
export function errorEnvelopeProblem(spec: SpecModel, response: ResponseData): string | undefined {
  if (response.jsonError) return `the body is ${response.jsonError}`;
  if (response.json === undefined) return 'the body is empty, not the error envelope';
  if (!spec.doc.components?.schemas?.ErrorEnvelope) return genericErrorProblem(response.json);
  const result = spec.contract.validateSchema('ErrorEnvelope', response.json);
  return result.valid ? undefined : `not the error envelope: ${result.errors.slice(0, 3).join('; ')}`;
}

/** The written spec's envelope (§7), for a spec that names no `ErrorEnvelope` schema. */
function genericErrorProblem(json: unknown): string | undefined {
  if (!isObject(json) || json.ok !== false || !isObject(json.error))
    return 'not the error envelope {ok:false,error}';
  if (typeof json.error.code !== 'string' || typeof json.error.message !== 'string') {
    return 'error.code and error.message must be strings';
  }
  return undefined;
}

/** `data` of a success envelope, when the body is one. */
export function dataOf(response: ResponseData | undefined): unknown {
  const body = response?.json;
  return isObject(body) && body.ok === true ? body.data : undefined;
}

/** Whether an answer serves data: a 2xx success envelope with `data`. */
export function servesData(response: ResponseData | undefined): boolean {
  return response !== undefined && isSuccess(response.status) && dataOf(response) !== undefined;
}

/** The ids of a collection answer's items, or of an item answer's one item. */
export function idsIn(response: ResponseData | undefined): string[] {
  const data = dataOf(response);
  const items = Array.isArray(data) ? data : data === undefined ? [] : [data];
  return items.flatMap((item) => (isObject(item) && typeof item.id === 'string' ? [item.id] : []));
}

/** Whether an answer is the refusal with this code at the status the spec gives the code. */
export function answersAs(spec: SpecModel, response: ResponseData, code: string): boolean {
  return response.status === spec.statusOfCode(code) && errorOf(response).code === code;
}

/** `401 unauthorized`, `404`: the status and code an answer gave, as advisories report it. */
export function answered(response: ResponseData): string {
  const code = errorOf(response).code;
  return `${response.status}${typeof code === 'string' ? ` ${code}` : ''}`;
}
