/**
 * Identical GETs and HEADs memoized for the run, so checks that ask the same thing share one fetch
 * (and one exchange). undici's `deduplicate` interceptor shares only requests in flight at once,
 * and its `cache` interceptor keeps what RFC 9111 lets a cache keep: the suite shares every
 * identical read of the run, whatever the answer's caching headers say, unless a check asks again
 * (`RequestSpec.again`).
 */
import type { Exchange, RequestSpec } from '../core/exchange.ts';

export class Memo {
  /** Requests answered from the memo. */
  memoized = 0;
  private readonly answers = new Map<string, Promise<Exchange>>();

  /** The exchange of an identical read asked before, or the one `send` makes; a write is always sent. */
  of(spec: RequestSpec, method: string, send: () => Promise<Exchange>): Promise<Exchange> {
    if (method !== 'GET' && method !== 'HEAD') return send();
    const key = JSON.stringify([
      method,
      spec.path,
      spec.query ?? '',
      spec.auth ?? null,
      spec.madeUpKey ?? null,
      spec.headers ?? {},
      spec.again ?? 0,
      spec.offSocket ?? false,
    ]);
    const known = this.answers.get(key);
    if (known) {
      this.memoized++;
      return known;
    }
    const pending = send();
    this.answers.set(key, pending);
    return pending;
  }
}
