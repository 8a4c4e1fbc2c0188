/**
 * What had arrived of an answer when its attempt ended: its status and headers once they came, and
 * its body's bytes so far, as undici hands them on (before any decoding). An interceptor of our own,
 * composed onto the run's dispatcher for one attempt (`Dispatcher.compose`), watches the dispatch
 * through undici's public handler API and passes every call on unchanged: it only takes note, so
 * an attempt that breaks off or runs out of time can say how far its answer had come
 * (`failures.ts`). undici keeps this inside the request and gives a caller no such account.
 */
import type { Dispatcher } from 'undici';
import type { Arrival } from './failures.ts';

/** How far one attempt's answer came; `answer` is undefined until its status and headers arrive. */
export interface Arrived {
  answer?: Arrival;
}

/** The interceptor that writes into `arrived` what comes of every dispatch through it. */
export function watchArrival(arrived: Arrived): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) =>
    dispatch(options, {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, status, headers, socket) =>
        handler.onRequestUpgrade?.(controller, status, headers, socket),
      onResponseStart(controller, status, headers, message) {
        // An interim answer (1xx) is replaced by the answer that follows it.
        arrived.answer = { status, headers, arrived: 0 };
        handler.onResponseStart?.(controller, status, headers, message);
      },
      onResponseData(controller, chunk) {
        if (arrived.answer) arrived.answer.arrived += chunk.length;
        handler.onResponseData?.(controller, chunk);
      },
      onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
      onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
    });
}
