/**
 * The client's pace toward the target: how many request starts any one-second (and, for `N/min`,
 * one-minute) window may hold, and what the target's 429s teach. `--rate-limit` sets the cap; a
 * 429 pauses every start until its `Retry-After` has passed (the client asks `pauseUntil`) and
 * lowers the cap to the most the target accepted in any one second of the last few (a per-key limit
 * never lets more through), one less each time a 429 comes back to a request sent at the learnt
 * rate; a 429 while the client kept below its cap (a pause had just ended) teaches nothing. A 429 in the run's first second teaches nothing yet (too little has been seen), nor do the
 * 429s of requests sent before the last lesson; only their waits count. The cap never rises again
 * within a run: a per-key limit does not loosen because the suite was polite. Starts are granted in
 * the order asked, so no request waits behind later ones.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaceSummary, RateLimit } from './types.ts';

const SECOND = 1_000;
const KEEP_ACCEPTED_MS = 60_000;
/** How far back a 429 looks for the busiest second the target accepted. */
const LOOK_BACK_MS = 5_000;

/** A cap on starts: at most `max` in any `ms`-long window. */
interface Window {
  ms: number;
  max: number;
}

export class Pace {
  private readonly asked: RateLimit | undefined;
  private readonly windows: Window[];
  /** Starts within the longest window, oldest first (ms on the monotonic clock). */
  private readonly starts: number[] = [];
  /** Accepted (non-429) answers, by the start of their request, oldest first. */
  private readonly accepted: number[] = [];
  private learnt: number | undefined;
  /** When the cap was last lowered: 429s to requests sent before then were already counted in it. */
  private learntAt = Number.NEGATIVE_INFINITY;
  private firstStart: number | undefined;
  private pausedUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  throttled = 0;

  constructor(rateLimit: RateLimit | undefined) {
    this.asked = rateLimit;
    this.windows = rateLimit ? windowsOf(rateLimit) : [];
  }

  /** Resolves when a request may start, and counts its start (the time it returns). */
  turn(): Promise<number> {
    const granted = this.queue.then(() => this.nextStart());
    this.queue = granted.then(() => undefined);
    return granted;
  }

  /** An answer to a request started at `startedAt` (a value `turn` returned). */
  answered(startedAt: number, status: number): void {
    if (status !== 429) {
      this.accepted.push(startedAt);
      return;
    }
    this.throttled++;
    if (startedAt < this.learntAt || startedAt - SECOND < (this.firstStart ?? startedAt)) return;
    const most = busiestSecond(this.accepted, startedAt - LOOK_BACK_MS, startedAt);
    const cap = this.perSecond();
    // Below its cap the client was not what the target refused (a pause, a fault): nothing to learn.
    const atCap = cap === undefined || busiestSecond(this.starts, startedAt - SECOND, startedAt + 1) >= cap;
    if (most === 0 || !atCap) return;
    this.learnt = Math.max(1, cap === undefined ? most : Math.min(most, cap - 1));
    this.learntAt = performance.now();
  }

  /** Every start waits until `until` (ms on the monotonic clock): a `Retry-After`. */
  pauseUntil(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  summary(): PaceSummary {
    const summary: PaceSummary = { throttled: this.throttled };
    if (this.asked) summary.asked = rateLimitText(this.asked);
    if (this.learnt !== undefined) summary.learntPerSecond = this.learnt;
    return summary;
  }

  /** Starts allowed in any second now: the learnt rate, or the one asked for. */
  private perSecond(): number | undefined {
    const asked = this.windows.find((w) => w.ms === SECOND)?.max;
    if (this.learnt === undefined) return asked;
    return asked === undefined ? this.learnt : Math.min(asked, this.learnt);
  }

  private async nextStart(): Promise<number> {
    for (;;) {
      const now = performance.now();
      const wait = Math.max(this.pausedUntil - now, this.windowWait(now));
      if (wait <= 0) {
        this.firstStart ??= now;
        this.starts.push(now);
        this.forget(now);
        return now;
      }
      await sleep(Math.ceil(wait));
    }
  }

  /** How long until a start fits every window (0: now). */
  private windowWait(now: number): number {
    let wait = 0;
    for (const window of this.currentWindows()) {
      const inWindow = this.starts.filter((t) => t > now - window.ms);
      if (inWindow.length < window.max) continue;
      // The start that must leave the window before another may enter it.
      const leaving = inWindow[inWindow.length - window.max] as number;
      wait = Math.max(wait, leaving + window.ms - now);
    }
    return wait;
  }

  private currentWindows(): Window[] {
    const perSecond = this.perSecond();
    const others = this.windows.filter((w) => w.ms !== SECOND);
    return perSecond === undefined ? others : [{ ms: SECOND, max: perSecond }, ...others];
  }

  /** Drops what no window looks at any more. */
  private forget(now: number): void {
    const longest = Math.max(SECOND, ...this.windows.map((w) => w.ms));
    while ((this.starts[0] ?? now) <= now - longest) this.starts.shift();
    // An answer may come a whole --timeout after its start: a minute of accepted starts is kept.
    while ((this.accepted[0] ?? now) <= now - KEEP_ACCEPTED_MS) this.accepted.shift();
  }
}

/** `N/s`: N a second. `N/min`: N a minute, spread as at most ⌈N/60⌉ in any second. */
function windowsOf(limit: RateLimit): Window[] {
  if (limit.perMs === SECOND) return [{ ms: SECOND, max: limit.requests }];
  return [
    { ms: SECOND, max: Math.ceil(limit.requests / 60) },
    { ms: limit.perMs, max: limit.requests },
  ];
}

export function rateLimitText(limit: RateLimit): string {
  return `${limit.requests}/${limit.perMs === SECOND ? 's' : 'min'}`;
}

/** The most of `times` (ms, any order) that one window a second long holds, from `from` to `to`. */
export function busiestSecond(times: readonly number[], from = -Infinity, to = Infinity): number {
  const within = times.filter((t) => t >= from && t < to).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < within.length; last++) {
    while ((within[last] as number) - (within[first] as number) >= SECOND) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
