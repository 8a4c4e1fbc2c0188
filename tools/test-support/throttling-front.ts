/**
 * Throttling in front of a server, as a busy deployment's gateway does it, legally: a seeded share
 * of requests answered with a status that says when to come back (a 429, or a 503 with
 * `Retry-After`), at random and not as a limit; or every request to paths that match, for a target
 * that never stops throttling some requests. The rest go on to the server unchanged. It notes every
 * request it is asked. Listens on 127.0.0.1 only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forward } from './forward.ts';

export interface ThrottlingOptions {
  /** The share of requests throttled at random, 0 to 1. */
  share?: number;
  /** Requests whose path matches are throttled every time. */
  always?: RegExp;
  status: 429 | 503;
  retryAfterSeconds: number;
  seed?: number;
}

export interface ThrottlingFront {
  url: string;
  /** Every request asked: its path and what it was answered (0: passed on). */
  asked: { path: string; throttled: boolean }[];
  close(): Promise<void>;
}

export async function startThrottlingFront(
  target: string,
  options: ThrottlingOptions,
): Promise<ThrottlingFront> {
  const upstream = new URL(target);
  const fraction = seededFractions(options.seed ?? 1);
  const asked: ThrottlingFront['asked'] = [];
  const front = createServer((req, res) => {
    const path = req.url ?? '/';
    const throttled =
      path.startsWith('/api/') && (options.always?.test(path) === true || fraction() < (options.share ?? 0));
    asked.push({ path, throttled });
    if (!throttled) return forward(req, res, upstream);
    req.resume();
    const code = options.status === 429 ? 'rate_limited' : 'unavailable';
    res.writeHead(options.status, {
      'content-type': 'application/json',
      'retry-after': String(options.retryAfterSeconds),
    });
    res.end(JSON.stringify({ ok: false, error: { code, message: 'Busy: come back after Retry-After.' } }));
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    close: () =>
      new Promise((resolve) => {
        front.close(() => resolve());
        front.closeAllConnections();
      }),
  };
}

/** A fixed stream of fractions from a seed (mulberry32): the same draws every run. */
function seededFractions(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
