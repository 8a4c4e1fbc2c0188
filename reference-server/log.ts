/**
 * Structured logs: one record per request (method, path, status, duration, request id) and a few
 * lifecycle records. A key never reaches a record: the path is the only request text logged, and
 * anything key-shaped in it (a prefixed key, or a long run of letters and digits) is masked.
 */
import { KEY_PREFIX } from '../spec/facts.ts';

export type LogRecord = { time: string; level: 'info' | 'warn' | 'error'; msg: string } & Record<
  string,
  unknown
>;
export type LogSink = (record: LogRecord) => void;

const KEY_IN_TEXT = new RegExp(`${KEY_PREFIX}[^/?#&\\s]*`, 'gi');
/**
 * A run of letters and digits longer than any id segment (UUID parts are at most 12): a key body
 * sent without its prefix, or after a percent-encoded one, is masked too.
 */
const LONG_TOKEN = /[A-Za-z0-9]{24,}/g;
const MAX_LOGGED_PATH = 512;

/** The longest a line waits to be written, and the most text gathered before it is. */
export const FLUSH_AFTER_MS = 20;
const FLUSH_AT_CHARS = 32 * 1024;

/**
 * A sink writing one JSON line per record. Lines are gathered and written together, at most
 * `FLUSH_AFTER_MS` after the first of them or once `FLUSH_AT_CHARS` are pending, rather than once
 * per request: process.stdout writes synchronously to files and pipes, a system call each, which
 * under a steady trickle of requests would cost one per request. Whatever is pending when the
 * process exits is written then, so `process.exit()` loses no line.
 */
export function jsonLines(stream: NodeJS.WritableStream = process.stdout): (record: object) => void {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const text = pending;
    pending = '';
    unflushed.delete(flush);
    stream.write(text);
  };
  return (record) => {
    if (pending === '') {
      unflushed.add(flush);
      timer = setTimeout(flush, FLUSH_AFTER_MS);
      timer.unref();
    }
    pending += `${JSON.stringify(record)}\n`;
    if (pending.length >= FLUSH_AT_CHARS) flush();
  };
}

/** The flushes of sinks holding lines not yet written; one `exit` listener runs them all. */
const unflushed = new Set<() => void>();
process.once('exit', () => {
  for (const flush of unflushed) flush();
});

export function logRecord(
  level: LogRecord['level'],
  msg: string,
  fields: Record<string, unknown> = {},
): LogRecord {
  return { time: isoNow(), level, msg, ...fields };
}

let clockMs = Number.NaN;
let clockIso = '';

/**
 * `new Date().toISOString()`, formatted once per millisecond: formatting costs about a
 * microsecond here, and under load dozens of request records share each millisecond.
 */
export function isoNow(): string {
  const now = Date.now();
  if (now !== clockMs) {
    clockMs = now;
    clockIso = new Date(now).toISOString();
  }
  return clockIso;
}

/** The path of a request URL for the log: no query string, keys masked, bounded length. */
export function loggablePath(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const masked = path.replace(KEY_IN_TEXT, `${KEY_PREFIX}[redacted]`).replace(LONG_TOKEN, '[redacted]');
  return masked.length > MAX_LOGGED_PATH ? `${masked.slice(0, MAX_LOGGED_PATH)}…` : masked;
}
