/**
 * An exchange as the rules see it, whichever source it came from: the documented operation it
 * belongs to and its parameters, the credentials it carried (`credentials.ts`), and what kind of
 * answer came back. The answer's kind is what keeps one cause one failure: a 5xx or an HTML page is
 * the answer rules' to fail, once; every other rule leaves such an answer unjudged.
 */
import type { Exchange, NetworkFailure, ResponseData } from './exchange.ts';
import type { Credential } from './credentials.ts';
import type { OperationModel } from './spec-model.ts';

export type AnswerKind =
  /** No answer: not sent (budget), timed out, cut, refused, or larger than the size cap. */
  | 'lost'
  /** An answer whose declared Content-Encoding does not decode. */
  | 'undecodable'
  /** Still throttled after the client's retries: a 429, or a 503 that says when to come back. */
  | 'throttled'
  /** A 5xx. */
  | 'server-error'
  /** An HTML page (a gateway's or a framework's error page). */
  | 'html'
  /** Another body that is not JSON, where the API answers JSON. */
  | 'not-json'
  /** JSON, or an answer that carries no body by its nature (HEAD, 304) or by its recording. */
  | 'usable';

/**
 * An exchange as a finding shows it, and the source it came from: an observation itself, or what a
 * cross-exchange rule kept of one (`evidence.ts`).
 */
export interface Evidence {
  readonly exchange: Exchange;
  /** Whether the exchange came from a live run or a recording. */
  readonly source: 'live' | 'traffic';
}

export interface Observation extends Evidence {
  /** The documented operation of this method and path, when there is one. */
  readonly op?: OperationModel;
  /** Its path parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The path below the base URL, as URL parsing reads it (dot segments removed, no fragment). */
  readonly path: string;
  /**
   * The request target below the base URL exactly as written: path, query and anything a client
   * put after them (`/api/v1/x/..;/walks#`), which URL parsing would have changed.
   */
  readonly target: string;
  readonly credential: Credential;
  readonly answer: AnswerKind;
  /** Present when the answer is `lost` or `undecodable`. */
  readonly failure?: NetworkFailure;
  /** A recorded answer whose body the recording does not hold: judged on status and headers only. */
  readonly bodyless: boolean;
  /** The path is under the API's prefix (`/api/v1`). */
  readonly inApi: boolean;
  /** Live runs: the rules whose plan asked for this request. */
  readonly plannedBy?: ReadonlySet<string>;
  /** Live runs: judged only by the rules that planned it (a catalogue transform, an odd spelling). */
  readonly private?: boolean;
  /** Live runs: the name of the catalogue transform that made the request. */
  readonly transform?: string;
}

const HTML = /^\s*(<!doctype html|<html|<head|<body)/i;

/** What kind of answer an exchange got (see `AnswerKind`). */
export function answerKindOf(
  exchange: Exchange,
  bodyless = false,
): { answer: AnswerKind; failure?: NetworkFailure } {
  const response = exchange.response;
  if (!response) {
    const failure = exchange.error ?? { kind: 'network', message: 'no answer' };
    return { answer: failure.kind === 'undecodable' ? 'undecodable' : 'lost', failure };
  }
  if (isThrottled(response)) return { answer: 'throttled' };
  if (response.status >= 500) return { answer: 'server-error' };
  // A redirect is a legal answer to another spelling of a path, whatever page it carries.
  if (response.status >= 300 && response.status <= 399) return { answer: 'usable' };
  if (isHtml(response)) return { answer: 'html' };
  if (bodyless || !hasBody(exchange.request.method, response) || response.json !== undefined)
    return { answer: 'usable' };
  return { answer: 'not-json' };
}

/**
 * The target's pace, never its fault: a 429, or a 503 with `Retry-After` (the client waits either
 * out and asks again; one still throttled after that says nothing of the rules that asked).
 */
export function isThrottled(response: Pick<ResponseData, 'status' | 'headers'>): boolean {
  return (
    response.status === 429 || (response.status === 503 && response.headers['retry-after'] !== undefined)
  );
}

function isHtml(response: ResponseData): boolean {
  return response.mediaType === 'text/html' || HTML.test(response.body.slice(0, 64));
}

/** HEAD answers, 204, 304 and 1xx carry no body by definition. */
export function hasBody(method: string, response: Pick<ResponseData, 'status'>): boolean {
  return method !== 'HEAD' && response.status !== 204 && response.status !== 304 && response.status >= 200;
}

/** The parsed body of a usable JSON answer, or undefined. */
export function jsonOf(obs: Observation): unknown {
  return obs.answer === 'usable' && !obs.bodyless ? obs.exchange.response?.json : undefined;
}
