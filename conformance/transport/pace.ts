/**
 * The client's pace toward the target: how many request starts any one-second (and, for `N/min`,
 * one-minute) window may hold, and what the target's 429s teach. `--rate-limit` caps every start of
 * the run. A deployment limits each key (D-RATE), so what a 429 teaches is the key's: the requests
 * carrying that key wait until its `Retry-After` has passed, and when 429s to that key come in a
 * run (a second one within two seconds), they keep from then on to 85 % of the most the target
 * accepted of that key in any one second of the last few (a per-key limit never lets more through;
 * the headroom is for arrivals a busy client sends bunched, which is what the target counts), and
 * one less at each 429 to a request sent at that cap. Before the first lesson a lone 429 only
 * pauses (a fault, not a limit: learning from it would slow the run for nothing); a 429 while the
 * key kept below its cap (a pause had just ended) or to a request sent before the last lesson
 * teaches nothing more. A learnt cap never rises again within a run: a per-key limit does not
 * loosen because the suite was polite. Each key's starts are granted in the order asked, so no
 * request waits behind later ones, nor behind another key's pause.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaceSummary, RateLimit } from '../core/types.ts';

const SECOND = 1_000;
/** An answer may come a whole `--timeout` after its start: a minute of starts is kept. */
const KEEP_MS = 60_000;
/** How far back a 429 looks for the busiest second the target accepted. */
const LOOK_BACK_MS = 5_000;
/** The share of the most a key got through that the run keeps to once a 429 has taught it. */
const HEADROOM = 0.85;
/** Two 429s to one key within this make a run of them: a limit, not a fault. */
const RUN_MS = 2_000;

/** A cap on starts: at most `max` in any `ms`-long window. */
interface Window {
  ms: number;
  max: number;
}

/** What the pace knows of one key's requests (ms on the monotonic clock). */
class KeyPace {
  readonly starts: number[] = [];
  /** Accepted (non-429) answers, by the start of their request. */
  readonly accepted: number[] = [];
  learnt: number | undefined;
  /** When the cap was last lowered: 429s to requests sent before then were already counted in it. */
  learntAt = Number.NEGATIVE_INFINITY;
  /** The start of the last request answered 429 since the last lesson. */
  lastThrottled = Number.NEGATIVE_INFINITY;
  pausedUntil = 0;
  queue: Promise<void> = Promise.resolve();
}

export class Pace {
  private readonly asked: RateLimit | undefined;
  private readonly windows: Window[];
  /** Every start of the run, for `--rate-limit`. */
  private readonly starts: number[] = [];
  private readonly keys = new Map<string, KeyPace>();
  throttled = 0;

  constructor(rateLimit: RateLimit | undefined) {
    this.asked = rateLimit;
    this.windows = rateLimit ? windowsOf(rateLimit) : [];
  }

  /**
   * Resolves when a request carrying `key` (what identifies its credentials to the target, '' for
   * none) may start, and counts its start: the time it returns.
   */
  turn(key: string): Promise<number> {
    const pace = this.paceOf(key);
    const granted = pace.queue.then(() => this.nextStart(pace));
    pace.queue = granted.then(() => undefined);
    return granted;
  }

  /** An answer to a request carrying `key`, started at `startedAt` (a value `turn` returned). */
  answered(key: string, startedAt: number, status: number): void {
    const pace = this.paceOf(key);
    if (status !== 429) {
      pace.accepted.push(startedAt);
      return;
    }
    this.throttled++;
    if (startedAt < pace.learntAt) return;
    const most = busiestSecond(pace.accepted, startedAt - LOOK_BACK_MS, startedAt);
    if (pace.learnt === undefined) {
      // Before any lesson a lone 429 is a fault, not a limit: a second within two seconds makes a run.
      const lone = startedAt - pace.lastThrottled > RUN_MS;
      pace.lastThrottled = startedAt;
      if (lone || most === 0) return;
      pace.learnt = Math.max(1, Math.min(most - 1, Math.floor(most * HEADROOM)));
    } else {
      // Below its cap the key was not what the target refused (a pause had just ended, a fault).
      const atCap = busiestSecond(pace.starts, startedAt - SECOND, startedAt + 1) >= pace.learnt;
      if (!atCap) return;
      pace.learnt = Math.max(1, Math.min(most, pace.learnt) - 1);
    }
    pace.learntAt = performance.now();
  }

  /** The requests carrying `key` wait until `until` (ms on the monotonic clock): a `Retry-After`. */
  pauseUntil(key: string, until: number): void {
    const pace = this.paceOf(key);
    pace.pausedUntil = Math.max(pace.pausedUntil, until);
  }

  summary(): PaceSummary {
    const summary: PaceSummary = { throttled: this.throttled };
    if (this.asked) summary.asked = rateLimitText(this.asked);
    const learnt = [...this.keys.values()].flatMap((pace) =>
      pace.learnt === undefined ? [] : [pace.learnt],
    );
    if (learnt.length > 0) summary.learntPerSecond = Math.min(...learnt);
    return summary;
  }

  private paceOf(key: string): KeyPace {
    let pace = this.keys.get(key);
    if (!pace) this.keys.set(key, (pace = new KeyPace()));
    return pace;
  }

  private async nextStart(pace: KeyPace): Promise<number> {
    for (;;) {
      const now = performance.now();
      const keyWindows = pace.learnt === undefined ? [] : [{ ms: SECOND, max: pace.learnt }];
      const wait = Math.max(
        pace.pausedUntil - now,
        windowWait(this.starts, this.windows, now),
        windowWait(pace.starts, keyWindows, now),
      );
      if (wait <= 0) {
        for (const starts of [this.starts, pace.starts]) starts.push(now);
        forget(this.starts, now);
        forget(pace.starts, now);
        forget(pace.accepted, now);
        return now;
      }
      await sleep(Math.ceil(wait));
    }
  }
}

/** How long until a start fits every window (0: now). */
function windowWait(starts: readonly number[], windows: readonly Window[], now: number): number {
  let wait = 0;
  for (const window of windows) {
    const inWindow = starts.filter((t) => t > now - window.ms);
    if (inWindow.length < window.max) continue;
    // The start that must leave the window before another may enter it (a millisecond after, so
    // starts stamped in whole milliseconds show the same).
    const leaving = inWindow[inWindow.length - window.max] as number;
    wait = Math.max(wait, leaving + window.ms + 1 - now);
  }
  return wait;
}

/** Drops what no window looks at any more (the times are in the order they were pushed). */
function forget(times: number[], now: number): void {
  while ((times[0] ?? now) <= now - KEEP_MS) times.shift();
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
