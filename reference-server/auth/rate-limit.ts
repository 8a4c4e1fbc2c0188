/**
 * Optional per-key rate limiting (D-RATE): a fixed one-minute window per key. Off unless the
 * deployment asks for it. Only authenticated keys are counted, so the table never outgrows the
 * keyring.
 */
export interface RateLimitConfig {
  requestsPerMinute: number;
  /** Milliseconds since the epoch; tests inject a clock instead of sleeping. Default `Date.now`. */
  now?: () => number;
}

const WINDOW_MS = 60_000;

export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; used: number }>();

  private readonly config: RateLimitConfig;
  private readonly now: () => number;

  constructor(config: RateLimitConfig, now: () => number = config.now ?? Date.now) {
    this.config = config;
    this.now = now;
  }

  /** Counts one request; returns the seconds to wait when over the limit, else undefined. */
  take(keyId: string): number | undefined {
    const now = this.now();
    let window = this.windows.get(keyId);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      window = { startedAt: now, used: 0 };
      this.windows.set(keyId, window);
    }
    if (window.used >= this.config.requestsPerMinute) {
      return Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now) / 1000));
    }
    window.used += 1;
    return undefined;
  }
}
