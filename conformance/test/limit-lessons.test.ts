/**
 * What 429s teach: a limit shows as refusals clustered above one count of a window, random 429s
 * teach nothing however many, a declared `RateLimit-Policy` is read as it says, a learnt pace is
 * never zero; and the gate on starts is exact over any sliding window, a minute's as a second's.
 */
import { describe, expect, it } from 'vitest';
import { capUnder, declaredLimits, limitOf } from '../transport/limit-lessons.ts';
import { busiestWindow, Starts, type Window } from '../transport/windows.ts';

/** The counts a client sees against a limit of `limit` a window, sending `bursts` bursts of `size`. */
function limitedEvidence(limit: number, bursts: number, size: number) {
  const accepted: number[] = [];
  const refused: number[] = [];
  for (let burst = 0; burst < bursts; burst++) {
    for (let count = 0, sent = 0; sent < size; sent++) {
      if (count < limit) accepted.push(count++);
      else refused.push(count);
    }
  }
  return { accepted, refused };
}

describe('a limit learnt from 429s', () => {
  it.each([2, 10, 120])('refusals clustered at %i teach that count', (limit) => {
    expect(limitOf(limitedEvidence(limit, 3, limit + 5))).toBe(limit);
  });

  it('random 429s (30 %) at every count teach nothing, however many', () => {
    // A fixed stream of fractions (mulberry32): the same draws every run.
    let seed = 7;
    const fraction = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
    const accepted: number[] = [];
    const refused: number[] = [];
    for (let count = 0; count < 2_000; count++) {
      if (fraction() < 0.3) refused.push(count % 50);
      else accepted.push(count % 50);
    }
    expect(refused.length).toBeGreaterThan(500);
    expect(limitOf({ accepted, refused })).toBeUndefined();
  });

  it('a lone refusal is no limit: a fault until another comes at that count', () => {
    expect(limitOf({ accepted: [0, 1, 2, 3, 4], refused: [5] })).toBeUndefined();
    expect(limitOf({ accepted: [0, 1, 2, 3, 4], refused: [5, 5] })).toBe(5);
  });

  it('a limit the evidence no longer shows is dropped: refusals below it, acceptances above it', () => {
    const evidence = limitedEvidence(10, 2, 15);
    expect(limitOf(evidence)).toBe(10);
    evidence.accepted.push(...Array.from({ length: 40 }, (_, i) => 10 + (i % 5)));
    expect(limitOf(evidence)).toBeUndefined();
  });

  it('the pace kept is a tenth below the limit, at least one less, never zero', () => {
    expect([capUnder(1), capUnder(2), capUnder(10), capUnder(120)]).toEqual([1, 1, 9, 108]);
  });

  it('reads RateLimit-Policy in either draft form, and ignores a policy without a window', () => {
    expect(declaredLimits({ 'ratelimit-policy': '10;w=1, 1000;w=3600' })).toEqual([
      { limit: 10, ms: 1_000 },
      { limit: 1_000, ms: 3_600_000 },
    ]);
    expect(declaredLimits({ 'ratelimit-policy': '"burst";q=120;w=60' })).toEqual([
      { limit: 120, ms: 60_000 },
    ]);
    expect(declaredLimits({ 'ratelimit-policy': '100' })).toEqual([]);
  });
});

describe('the gate on starts', () => {
  /** Starts taken as early as the gate allows, on a clock that only the test moves. */
  function greedy(windows: Window[], n: number): number[] {
    const starts = new Starts();
    const times: number[] = [];
    let now = 0;
    while (times.length < n) {
      const wait = starts.waitFor(windows, now);
      if (wait > 0) {
        now += Math.ceil(wait);
        continue;
      }
      starts.add(now, 120_000);
      times.push(now);
    }
    return times;
  }

  it.each([
    [{ ms: 1_000, max: 20 }, 1_000],
    [{ ms: 60_000, max: 120 }, 60_000],
  ])('%j: no sliding window of its length ever holds more', (window, ms) => {
    const times = greedy([window], window.max * 3 + 1);
    expect(busiestWindow(times, ms)).toBe(window.max);
    // Bunched by up to the guard, the starts still fit.
    expect(busiestWindow(times, ms * 1.04)).toBe(window.max);
  });
});
