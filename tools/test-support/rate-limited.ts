/**
 * A per-key rate limit in front of a server, as an API gateway enforces one: at most `perSecond`
 * requests of one key (sent as `Authorization: Bearer` or `x-api-key`) in any one-second window; past
 * it a 429 in the API's envelope with `Retry-After` (whole seconds until the window has room). It
 * notes every request it is asked (when, and what it answered), for the figures of a paced run: the
 * share of 429s and the busiest second. Listens on 127.0.0.1 only.
 */
import { createServer } from 'node:http';
import { forward } from './forward.ts';
import type { AddressInfo } from 'node:net';

interface Arrival {
  /** Milliseconds on the monotonic clock (`performance.now()`). */
  at: number;
  status: number;
  /** Which key it carried: the order the proxy first saw it in (0: none), never the key. */
  key: number;
}

export interface RateLimitedTarget {
  url: string;
  /** Every request asked, in order. */
  arrivals: Arrival[];
  close(): Promise<void>;
}

const SECOND = 1_000;

export async function startRateLimitedProxy(target: string, perSecond: number): Promise<RateLimitedTarget> {
  const upstream = new URL(target);
  const byKey = new Map<string, number[]>();
  const seen = new Map<string, number>();
  const arrivals: Arrival[] = [];
  const proxy = createServer((req, res) => {
    const at = performance.now();
    // One key is one key, in either header (as a deployment's per-key limit counts it).
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const key = String(bearer ?? req.headers['x-api-key'] ?? req.headers.authorization ?? '');
    if (!seen.has(key)) seen.set(key, key === '' ? 0 : seen.size + 1);
    const keyIndex = seen.get(key) ?? 0;
    const recent = (byKey.get(key) ?? []).filter((t) => t > at - SECOND);
    byKey.set(key, recent);
    if (recent.length >= perSecond) {
      arrivals.push({ at, status: 429, key: keyIndex });
      const seconds = Math.max(1, Math.ceil(((recent[0] as number) + SECOND - at) / SECOND));
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(seconds) });
      res.end('{"ok":false,"error":{"code":"rate_limited","message":"Too many requests for this key."}}');
      req.resume();
      return;
    }
    recent.push(at);
    arrivals.push({ at, status: 0, key: keyIndex });
    const arrival = arrivals[arrivals.length - 1] as Arrival;
    forward(req, res, upstream, (answer) => {
      arrival.status = answer.statusCode ?? 502;
      res.writeHead(arrival.status, answer.rawHeaders);
      answer.pipe(res);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      }),
  };
}
