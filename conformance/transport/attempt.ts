/**
 * One attempt of a request: sent through the run's dispatcher (`dispatcher.ts`: its timeouts and
 * undici's own size cap, `maxResponseSize` = `--max-response-bytes`), watched by our arrival
 * interceptor (`arrival.ts`), its body read whole and decoded (`decoding.ts`), and bounded by
 * `--timeout` from its start whatever leg it is in (connect, a proxy's CONNECT, TLS, headers and
 * body). undici cannot abort a request still waiting for its connection (a proxy that accepted and
 * never answers CONNECT), so the deadline does not wait for undici; the dispatcher's own timeouts
 * end the abandoned attempt soon after. Whatever happens comes back as an answer or a failure
 * (`failures.ts`), never as a throw.
 */
import { type Dispatcher, request } from 'undici';
import { responseOf } from '../core/response-data.ts';
import type { NetworkFailure, ResponseData } from '../core/exchange.ts';
import type { ProxySetting } from '../core/configuration.ts';
import type { Target } from './as-written.ts';
import { type Arrived, watchArrival } from './arrival.ts';
import type { RunEnd } from './deadline.ts';
import { contentOf } from './decoding.ts';
import type { TlsOptions } from './dispatcher.ts';
import { type AttemptFailure, brokenOffOf, thrownFailureOf, timedOutOf } from './failures.ts';
import { rawAnswer } from './raw-answer.ts';

/** What one attempt came to: an answer, or why there was none. */
export type AttemptOutcome = ResponseData | AttemptFailure;

/** The way every attempt goes, and what bounds it. */
export interface Way {
  dispatcher: Dispatcher;
  /** The proxy every request goes through; undefined for a direct connection. */
  proxy: ProxySetting | undefined;
  /** The target's TLS options, as the dispatcher's, for an answer read off the socket. */
  socketTls: TlsOptions & { servername?: string };
  timeoutMs: number;
  maxResponseBytes: number;
  runEnd: RunEnd;
}

export interface AttemptRequest {
  method: string;
  target: Target;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Read the answer off the socket (`raw-answer.ts`) rather than through undici. */
  offSocket?: boolean;
}

/** One attempt, bounded by `--timeout` (or the run's end, when nearer); never throws. */
export async function attempted(way: Way, attempt: AttemptRequest): Promise<AttemptOutcome> {
  const controller = new AbortController();
  const arrived: Arrived = {};
  let timer: NodeJS.Timeout | undefined;
  const runEnds = way.runEnd.left() < way.timeoutMs;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(
      () => {
        resolve('deadline');
        controller.abort();
      },
      Math.min(way.timeoutMs, Math.max(0, way.runEnd.left())),
    );
  });
  const answering = attempt.offSocket
    ? offSocketAnswerOf(way, attempt, controller, arrived)
    : answerOf(way, attempt, controller, arrived);
  const work = answering.catch((error: unknown) => ({ thrown: error }) as const);
  try {
    const first = await Promise.race([work, deadline]);
    if (first === 'deadline') {
      if (runEnds) return way.runEnd.failure('waiting for an answer');
      return timedOutOf(arrived.answer, way.timeoutMs);
    }
    return 'thrown' in first ? thrownFailureOf(first.thrown, way.proxy) : first;
  } finally {
    clearTimeout(timer);
  }
}

/** Sends the request and reads its answer, decoded; throws what undici throws before the headers. */
async function answerOf(
  way: Way,
  attempt: AttemptRequest,
  controller: AbortController,
  arrived: Arrived,
): Promise<ResponseData | NetworkFailure> {
  const { method, target, headers, body } = attempt;
  const dispatcher = way.dispatcher.compose(watchArrival(arrived));
  const options = { method: method as 'GET', headers, body, signal: controller.signal };
  // `Dispatcher.request` sends the path as given, through the same dispatcher (an http target
  // behind a proxy gets it in the absolute-URI request, `origin + path`).
  const answer =
    typeof target === 'string'
      ? await request(target, { ...options, dispatcher })
      : await dispatcher.request({ ...options, ...target });
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of answer.body as AsyncIterable<Buffer>) chunks.push(chunk);
  } catch (error) {
    // The status and headers came: the target answered, and the answer broke off (`failures.ts`).
    if (controller.signal.aborted) throw error;
    const arrival = arrived.answer ?? { status: answer.statusCode, headers: answer.headers, arrived: 0 };
    return brokenOffOf(error, arrival, way.maxResponseBytes);
  }
  const wire = { status: answer.statusCode, headers: answer.headers, wire: Buffer.concat(chunks) };
  return contentOf(wire, method, way.maxResponseBytes);
}

/**
 * The answer read off the socket (`raw-answer.ts`): its status, headers and the bytes after them.
 * Through a proxy the request goes as any other, and the answer says why it was not read so.
 */
async function offSocketAnswerOf(
  way: Way,
  attempt: AttemptRequest,
  controller: AbortController,
  arrived: Arrived,
): Promise<ResponseData | NetworkFailure> {
  const { method, target, headers, body } = attempt;
  if (way.proxy || body !== undefined) {
    const answer = await answerOf(way, attempt, controller, arrived);
    if ('kind' in answer) return answer;
    const unread = way.proxy ? 'the run goes through a proxy' : 'a request with a body';
    return { ...answer, socket: { unread: `${unread}: the answer was read by the HTTP client` } };
  }
  const url = typeof target === 'string' ? new URL(target) : undefined;
  const raw = await rawAnswer({
    origin: url?.origin ?? (target as Exclude<Target, string>).origin,
    target: url ? `${url.pathname}${url.search}` : (target as Exclude<Target, string>).path,
    method,
    headers,
    tls: way.socketTls,
    signal: controller.signal,
  });
  const response = responseOf(raw.status, raw.headers, Buffer.alloc(0));
  response.socket = { afterHeaders: raw.afterHeaders };
  // An answer with content (a revalidation answered 200) is counted, not parsed: its body is not kept.
  if (method !== 'HEAD' && raw.status !== 204 && raw.status !== 304) response.unrecorded = true;
  return response;
}
